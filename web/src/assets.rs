//! The pages, their scripts and styles, and the vendored xterm.js
//! (`assets/vendor/VERSION` says which, and from where), all embedded in
//! the binary: nothing is built or fetched at install time.

pub const DASHBOARD_HTML: &str = include_str!("../assets/dashboard.html");
pub const PANE_HTML: &str = include_str!("../assets/pane.html");
const LOGIN_HTML: &str = include_str!("../assets/login.html");

/// Where the login page says why the last try failed.
const LOGIN_ERROR_SLOT: &str = "<!-- error -->";

/// The login page; after a wrong token, saying so.
pub fn login_page(failed: bool) -> String {
    let error = if failed {
        r#"<p class="error" role="alert">That is not the token. Run <code>signaltty web token</code> on the machine and paste what it prints.</p>"#
    } else {
        ""
    };
    LOGIN_HTML.replace(LOGIN_ERROR_SLOT, error)
}

/// The asset under `/assets/NAME`: its content type and bytes.
pub fn file(name: &str) -> Option<(&'static str, &'static [u8])> {
    const JS: &str = "text/javascript; charset=utf-8";
    const CSS: &str = "text/css; charset=utf-8";
    Some(match name {
        "app.css" => (CSS, include_bytes!("../assets/app.css")),
        "dashboard.js" => (JS, include_bytes!("../assets/dashboard.js")),
        "pane.js" => (JS, include_bytes!("../assets/pane.js")),
        "vendor/xterm.js" => (JS, include_bytes!("../assets/vendor/xterm.js")),
        "vendor/xterm.css" => (CSS, include_bytes!("../assets/vendor/xterm.css")),
        "vendor/addon-fit.js" => (JS, include_bytes!("../assets/vendor/addon-fit.js")),
        "vendor/VERSION" => (
            "text/plain; charset=utf-8",
            include_bytes!("../assets/vendor/VERSION"),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_login_page_says_when_the_token_was_wrong() {
        assert!(LOGIN_HTML.contains(LOGIN_ERROR_SLOT));
        assert!(!login_page(false).contains("not the token"));
        assert!(login_page(true).contains("not the token"));
        assert!(file("vendor/xterm.js").is_some());
        assert!(file("../Cargo.toml").is_none());
    }
}
