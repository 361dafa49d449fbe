//! Where the web app may listen: on loopback, or elsewhere only when the
//! user said, knowing why not.

use std::net::SocketAddr;

/// The address `signaltty web` listens on unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7681";

/// A listening address refused for want of TLS.
#[derive(Debug, thiserror::Error)]
#[error(
    "refusing to listen on {0} without TLS: the token, the session cookie and every keystroke \
     would cross the network in clear; serve it with --tls-cert and --tls-key, or reach it \
     from elsewhere through an SSH tunnel \
     (`ssh -L 7681:127.0.0.1:7681 HOST`), Tailscale serve or a TLS reverse proxy (see docs/web.md), \
     or pass --insecure-http if this network is yours alone"
)]
pub struct NeedsTls(pub SocketAddr);

/// What to tell the user before serving plain HTTP beyond loopback.
pub fn insecure_warning(address: SocketAddr) -> String {
    format!(
        "signaltty web: WARNING: serving plain HTTP on {address} (--insecure-http): anyone who can \
         see this network's traffic can read the token and the session cookie as you log in and \
         then type into every pane; use it only on a network that is yours alone"
    )
}

/// Refuses a non-loopback `address` unless it is served over `tls` or
/// `insecure_http`; `Ok(true)` when it is served insecurely and the user
/// must be warned.
pub fn check(address: SocketAddr, tls: bool, insecure_http: bool) -> Result<bool, NeedsTls> {
    if tls || address.ip().is_loopback() {
        return Ok(false);
    }
    if insecure_http {
        return Ok(true);
    }
    Err(NeedsTls(address))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_goes_without_saying() {
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert!(!check(at(DEFAULT_LISTEN), false, false).unwrap());
        assert!(!check(at("[::1]:80"), false, false).unwrap());
        assert!(!check(at("127.3.4.5:80"), false, false).unwrap());
        let err = check(at("0.0.0.0:7681"), false, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--tls-cert")
                && err.contains("SSH tunnel")
                && err.contains("--insecure-http"),
            "{err}"
        );
        assert!(!err.contains('\n'));
        assert!(check(at("192.168.1.2:7681"), false, true).unwrap());
        assert!(check(at("[::]:7681"), false, false).is_err());
        assert!(!check(at("0.0.0.0:7681"), true, false).unwrap());
    }
}
