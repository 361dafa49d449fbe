//! A pane's shown title: the name a user gives it (saved, restored, and
//! never overwritten by a title the program sets), else the program's own
//! title, else the program's name.

use signaltty_persistence::PaneRecord;

use crate::model::program_name;

/// A user-chosen title, kept over whatever the program sets (`osc`);
/// `None` goes back to the program's title (or its name).
pub(super) fn rename(record: &mut PaneRecord, name: Option<String>, osc: &str) {
    if name.is_none() {
        // Forget the old name, so the program's title or name shows.
        record.title.clear();
    }
    record.user_title = name;
    refresh(record, osc);
}

/// Recomputes the shown title from the user's name and the program's
/// title `osc`; true when it changed.
pub(super) fn refresh(record: &mut PaneRecord, osc: &str) -> bool {
    let title = match &record.user_title {
        Some(user) => user.clone(),
        None if !osc.is_empty() => osc.to_string(),
        // Keep a saved title until the program names itself.
        None if !record.title.is_empty() => return false,
        None => program_name(&record.argv),
    };
    if title == record.title {
        return false;
    }
    record.title = title;
    true
}
