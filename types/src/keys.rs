//! [`NewlineKey`]: the key an agent's input box reads as a new line on a
//! terminal that speaks no keyboard protocol.
//!
//! Shift+Enter cannot be told from Enter in xterm's encoding. A program
//! that wants it asks for the kitty keyboard protocol or modifyOtherKeys;
//! one that asks for neither (Claude Code does not, unless it recognises
//! the terminal) still reads some other key as a new line. Clients and
//! `send-keys` send Shift+Enter as that key to such a program; which key
//! each agent reads is its data file's fact (`[keys] newline`).

use serde::{Deserialize, Serialize};

/// A key that inserts a new line where Enter would submit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum NewlineKey {
    /// `ESC CR`.
    #[serde(rename = "alt+enter")]
    AltEnter,
    /// `LF`.
    #[serde(rename = "ctrl+j")]
    CtrlJ,
}

impl NewlineKey {
    /// Its name, as a key name `send-keys` takes (`alt+enter`, `ctrl+j`).
    pub fn as_str(self) -> &'static str {
        match self {
            NewlineKey::AltEnter => "alt+enter",
            NewlineKey::CtrlJ => "ctrl+j",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_wire_name_is_its_key_name() {
        for key in [NewlineKey::AltEnter, NewlineKey::CtrlJ] {
            let json = serde_json::to_string(&key).unwrap();
            assert_eq!(json, format!("{:?}", key.as_str()));
            assert_eq!(serde_json::from_str::<NewlineKey>(&json).unwrap(), key);
        }
    }
}
