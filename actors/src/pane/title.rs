//! The name a user gives a pane: saved, restored, and never overwritten by
//! a title the program sets.

use super::Pane;

impl Pane {
    /// A user-chosen title, kept over whatever the program sets; `None`
    /// goes back to the program's title (or its name).
    pub(super) fn rename(&mut self, name: Option<String>) {
        if name.is_none() {
            // Forget the old name, so the program's title or name shows.
            self.record.title.clear();
        }
        self.record.user_title = name;
        self.refresh_title();
        self.publish();
    }
}
