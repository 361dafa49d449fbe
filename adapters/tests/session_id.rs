//! validate_session_id() and SessionId.

mod common;

use common::{AMP_ID, GOOSE_ID, OPENCODE_ID, UUID, good_id};
use signaltty_adapters::{AdapterError, AgentKind, validate_session_id};

const UUID_KINDS: [AgentKind; 9] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Cursor,
    AgentKind::Gemini,
    AgentKind::Copilot,
    AgentKind::Qwen,
    AgentKind::Kiro,
    AgentKind::Pi,
    AgentKind::Crush,
];

const UUID_RULE: &str = "must be a UUID like 123e4567-e89b-12d3-a456-426614174000";
const OPENCODE_RULE: &str = "must be `ses_` followed by 26 ASCII letters or digits, \
                             like ses_fe1c3a9b2d07Qm4xT8vLr2KpZa";
const GENERIC_RULE: &str =
    "must be 1 to 128 characters of A-Z a-z 0-9 . _ : - and must not start with '-'";

const AMP_RULE: &str = "must be `T-` and a UUID, like T-7f395a45-7fae-4983-8de0-d02e61d30183";
const GOOSE_RULE: &str = "must be a date and a number, like 20251108_1";

fn rule_of(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::Opencode => OPENCODE_RULE,
        AgentKind::Amp => AMP_RULE,
        AgentKind::Goose => GOOSE_RULE,
        AgentKind::Generic | AgentKind::Grok | AgentKind::Aider => GENERIC_RULE,
        _ => UUID_RULE,
    }
}

/// Asserts that `id` is refused for `kind` with a message that names the
/// kind and the rule and carries no control character.
fn assert_refused(kind: AgentKind, id: &str) {
    let err = match validate_session_id(kind, id) {
        Ok(ok) => panic!("{kind} accepted {id:?} as {ok:?}"),
        Err(err) => err,
    };
    let AdapterError::InvalidSessionId {
        kind: err_kind,
        rule,
        ref id_shown,
    } = err
    else {
        panic!("{kind} {id:?}: wrong error {err:?}");
    };
    assert_eq!(err_kind, kind);
    assert_eq!(rule, rule_of(kind), "{kind} {id:?}");
    let message = err.to_string();
    assert_eq!(
        message,
        format!("invalid {kind} session id \"{id_shown}\": {rule}")
    );
    assert!(message.contains(kind.as_str()), "{message}");
    assert!(!message.chars().any(char::is_control), "{message:?}");
    assert!(!id_shown.chars().any(char::is_control), "{id_shown:?}");
}

/// Refused for every kind, whatever its rule.
const ALWAYS_BAD: &[&str] = &[
    "",
    "--help",
    "-r",
    "-",
    "--",
    "../x",
    "a/b",
    "/",
    "a b",
    " ",
    "id\n",
    "\n",
    "id\r",
    "\tid",
    "id\0",
    "\u{1b}[31mred",
    "\u{7f}",
    "\u{9b}31m",
    "ses_fe1c3a9b2d07Qm4xT8vLr2Kp/a",
    "123e4567-e89b-12d3-a456-42661417400/",
    "-23e4567-e89b-12d3-a456-426614174000",
];

#[test]
fn refused_for_every_kind() {
    for kind in AgentKind::ALL {
        for id in ALWAYS_BAD {
            assert_refused(kind, id);
        }
    }
}

#[test]
fn uuid_kinds_accept_canonical_uuids_in_either_case() {
    let good = [
        UUID,
        "123E4567-E89B-12D3-A456-426614174000",
        "123e4567-E89B-12d3-A456-426614174000",
        // codex ids are UUIDv7
        "0199a213-81c0-7800-8aa1-bbab2a035a53",
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ];
    for kind in UUID_KINDS {
        for id in good {
            let sid = validate_session_id(kind, id).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(sid.as_str(), id, "kept exactly as given");
            assert_eq!(sid.kind(), kind);
        }
    }
}

#[test]
fn uuid_kinds_refuse_everything_else() {
    let bad = [
        "123e4567e89b12d3a456426614174000",
        "{123e4567-e89b-12d3-a456-426614174000}",
        "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
        "123e4567-e89b-12d3-a456-42661417400",
        "123e4567-e89b-12d3-a456-4266141740000",
        "123e4567-e89b-12d3-a456-42661417400g",
        "123e4567+e89b-12d3-a456-426614174000",
        "123e456-7e89b-12d3-a456-426614174000",
        " 123e4567-e89b-12d3-a456-426614174000",
        "123e4567-e89b-12d3-a456-426614174000 ",
        "123e4567-e89b-12d3-a456-426614174000\n",
        "１23e4567-e89b-12d3-a456-426614174000",
        "0cb916d",
        "latest",
        "5",
        "my feature",
        OPENCODE_ID,
    ];
    for kind in UUID_KINDS {
        for id in bad {
            assert_refused(kind, id);
        }
    }
}

#[test]
fn opencode_accepts_ses_and_26_alphanumerics() {
    let good = [
        OPENCODE_ID,
        "ses_00000000000000000000000000",
        "ses_abcdefghijklmnopqrstuvwxyz",
        "ses_ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ];
    for id in good {
        let sid = validate_session_id(AgentKind::Opencode, id).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sid.as_str(), id);
    }
}

#[test]
fn opencode_refuses_other_shapes() {
    let bad = [
        "ses_fe1c3a9b2d07Qm4xT8vLr2KpZ",
        "ses_fe1c3a9b2d07Qm4xT8vLr2KpZab",
        "ses_",
        "ses",
        "SES_fe1c3a9b2d07Qm4xT8vLr2KpZa",
        "ses-fe1c3a9b2d07Qm4xT8vLr2KpZa",
        "msg_fe1c3a9b2d07Qm4xT8vLr2KpZa",
        "ses_fe1c3a9b2d07Qm4xT8vLr2Kp_a",
        "ses_fe1c3a9b2d07Qm4xT8vLr2Kp-a",
        "ses_fe1c3a9b2d07Qm4xT8vLr2KpZé",
        " ses_fe1c3a9b2d07Qm4xT8vLr2KpZa",
        UUID,
    ];
    for id in bad {
        assert_refused(AgentKind::Opencode, id);
    }
}

#[test]
fn amp_takes_thread_ids_and_goose_dated_ids_only() {
    for (kind, good, bad) in [
        (
            AgentKind::Amp,
            &[AMP_ID, "T-0199A213-81C0-7800-8AA1-BBAB2A035A53"][..],
            &[
                UUID,
                "T-",
                "T-7f395a45",
                "t-7f395a45-7fae-4983-8de0-d02e61d30183",
                "T-7f395a45-7fae-4983-8de0-d02e61d30183x",
            ][..],
        ),
        (
            AgentKind::Goose,
            &[GOOSE_ID, "20260101_42"][..],
            &[
                UUID,
                "2025110_1",
                "20251108-1",
                "20251108_",
                "20251108_1 ",
                "my-project",
            ][..],
        ),
    ] {
        for id in good {
            assert_eq!(validate_session_id(kind, id).unwrap().as_str(), *id);
        }
        for id in bad {
            assert_refused(kind, id);
        }
    }
}

#[test]
fn generic_accepts_the_conservative_charset() {
    let longest = "a".repeat(128);
    let good = [
        "a",
        "thread-123",
        "a.b_c:d-e",
        "..",
        "x-",
        UUID,
        OPENCODE_ID,
        longest.as_str(),
    ];
    for id in good {
        let sid = validate_session_id(AgentKind::Generic, id).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sid.as_str(), id);
        assert_eq!(sid.kind(), AgentKind::Generic);
    }
}

#[test]
fn generic_refuses_long_leading_dash_and_other_characters() {
    let too_long = "a".repeat(129);
    let bad = [
        too_long.as_str(),
        "-x",
        "a,b",
        "a;b",
        "a=b",
        "a\"b",
        "a'b",
        "$(x)",
        "é",
        "a\\b",
    ];
    for id in bad {
        assert_refused(AgentKind::Generic, id);
    }
}

#[test]
fn the_message_reads_as_documented() {
    let err = validate_session_id(AgentKind::Claude, "--help").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid claude session id \"--help\": must be a UUID like \
         123e4567-e89b-12d3-a456-426614174000"
    );
    let err = validate_session_id(AgentKind::Opencode, "x").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid opencode session id \"x\": {OPENCODE_RULE}")
    );
}

#[test]
fn the_message_escapes_and_shortens_the_id() {
    let err = validate_session_id(AgentKind::Codex, "id\n\u{1b}[2J\"").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid codex session id \"id\\n\\u{{1b}}[2J\\\"\": {UUID_RULE}")
    );
    let long = "z".repeat(500);
    let AdapterError::InvalidSessionId { id_shown, .. } =
        validate_session_id(AgentKind::Gemini, &long).unwrap_err()
    else {
        panic!("wrong error");
    };
    assert!(id_shown.len() < 80, "{id_shown}");
    assert!(id_shown.ends_with("…(+452)"), "{id_shown}");
}

#[test]
fn session_id_displays_and_serializes_as_the_bare_id() {
    for kind in AgentKind::ALL {
        let id = good_id(kind);
        let sid = validate_session_id(kind, id).unwrap();
        assert_eq!(sid.to_string(), id);
        assert_eq!(sid.as_ref() as &str, id);
        assert_eq!(serde_json::to_string(&sid).unwrap(), format!("\"{id}\""));
    }
}

#[test]
fn the_same_text_validated_for_two_kinds_is_two_ids() {
    let claude = validate_session_id(AgentKind::Claude, UUID).unwrap();
    let codex = validate_session_id(AgentKind::Codex, UUID).unwrap();
    assert_ne!(claude, codex);
    assert_eq!(claude.as_str(), codex.as_str());
}
