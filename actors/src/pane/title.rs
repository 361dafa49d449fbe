//! A pane's shown title: the name a user gives it (saved, restored, and
//! never overwritten by a title the program sets), else the program's own
//! title, else the program's name.

use signaltty_types::PaneRecord;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(argv: &str) -> PaneRecord {
        let mut record = PaneRecord::new("p-test", "w-test", "t-test");
        record.argv = vec![argv.to_string()];
        record.title.clear();
        record
    }

    #[test]
    fn a_user_name_beats_the_program_title_until_it_is_taken_back() {
        let mut pane = record("/bin/bash");
        assert!(refresh(&mut pane, ""));
        assert_eq!(pane.title, "bash");
        assert!(refresh(&mut pane, "vim notes"));
        assert_eq!(pane.title, "vim notes");
        rename(&mut pane, Some("logs".into()), "vim notes");
        assert_eq!(pane.title, "logs");
        assert!(!refresh(&mut pane, "vim other"));
        rename(&mut pane, None, "vim other");
        assert_eq!(pane.title, "vim other");
    }

    #[test]
    fn a_saved_title_stays_until_the_program_names_itself() {
        let mut pane = record("bash");
        pane.title = "saved".into();
        assert!(!refresh(&mut pane, ""));
        assert_eq!(pane.title, "saved");
    }
}
