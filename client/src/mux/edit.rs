//! A one-line text field (names, search strings) at the status line.

use super::keys::Key;

/// The largest text a field takes: more than any name the server allows.
const MAX_CHARS: usize = 512;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineEdit {
    pub text: String,
}

/// What a key did to the field.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit {
    Editing,
    Done(String),
    Cancelled,
}

impl LineEdit {
    pub fn with(text: &str) -> LineEdit {
        LineEdit {
            text: text.to_string(),
        }
    }

    pub fn key(&mut self, key: Key) -> Edit {
        match key {
            Key::Enter => return Edit::Done(std::mem::take(&mut self.text)),
            Key::Escape | Key::Ctrl('c') | Key::Ctrl('g') => return Edit::Cancelled,
            Key::Backspace | Key::Ctrl('h') => {
                self.text.pop();
            }
            Key::Ctrl('u') => self.text.clear(),
            Key::Ctrl('w') => {
                let kept = self.text.trim_end().rfind(' ').map_or(0, |i| i + 1);
                self.text.truncate(kept);
            }
            Key::Char(c) => self.paste(&c.to_string()),
            _ => {}
        }
        Edit::Editing
    }

    /// Pasted or typed text; control characters become spaces.
    pub fn paste(&mut self, text: &str) {
        for c in text.chars() {
            if self.text.chars().count() >= MAX_CHARS {
                return;
            }
            self.text.push(if c.is_control() { ' ' } else { c });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_editing_and_finishing() {
        let mut edit = LineEdit::with("old name");
        edit.key(Key::Ctrl('w'));
        assert_eq!(edit.text, "old ");
        for c in "new".chars() {
            edit.key(Key::Char(c));
        }
        edit.key(Key::Backspace);
        edit.paste("w\nx");
        assert_eq!(edit.key(Key::Enter), Edit::Done("old new x".into()));
        assert_eq!(LineEdit::default().key(Key::Escape), Edit::Cancelled);
        let mut long = LineEdit::default();
        long.paste(&"y".repeat(2000));
        assert_eq!(long.text.len(), MAX_CHARS, "bounded");
    }
}
