//! The routes, and the checks every request passes: a session cookie for
//! everything but the login page and the static assets, an `Origin` that
//! matches the `Host` for every POST and every WebSocket upgrade, bounded
//! bodies, and nothing at all under a path that is not here.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use axum::Router;
use axum::extract::connect_info::Connected;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::IncomingStream;
use serde::Deserialize;
use signaltty_client::client::Endpoint;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::actions::{self, Action, Outcome};
use crate::assets;
use crate::auth::{COOKIE, LoginLimit, SESSION_LIFETIME, Sessions};
use crate::tls::TlsListener;
use crate::token::{Token, TokenFile};

/// The largest request body accepted (a login form is a few dozen bytes).
pub const MAX_BODY: usize = 64 * 1024;
/// The largest WebSocket message or frame a browser may send.
pub const MAX_WS_MESSAGE: usize = 64 * 1024;

/// What every request shares.
pub struct App {
    pub endpoint: Endpoint,
    pub token_file: TokenFile,
    pub read_only: bool,
    /// Cookies carry `Secure`: the app is served over TLS.
    secure: bool,
    sessions: Mutex<Sessions>,
    logins: Mutex<LoginLimit>,
    /// The dashboard's listing, newest last.
    pub listings: watch::Receiver<Arc<String>>,
    /// The token as last read: a WebSocket ends when it changes.
    pub token: watch::Receiver<Option<Token>>,
}

impl App {
    pub fn new(
        endpoint: Endpoint,
        token_file: TokenFile,
        read_only: bool,
        secure: bool,
        listings: watch::Receiver<Arc<String>>,
        token: watch::Receiver<Option<Token>>,
    ) -> App {
        App {
            endpoint,
            token_file,
            read_only,
            secure,
            sessions: Mutex::new(Sessions::default()),
            logins: Mutex::new(LoginLimit::default()),
            listings,
            token,
        }
    }

    /// The session the request's cookie names, if it is one of the
    /// token the file holds now; the token, for a WebSocket to watch.
    fn session(&self, headers: &HeaderMap) -> Option<Token> {
        let id = session_cookie(headers)?;
        let current = self.token_file.read().ok();
        lock(&self.sessions)
            .check(id, current.as_ref(), Instant::now())
            .then_some(current)
            .flatten()
    }
}

/// Why a read-only web server did nothing.
pub const READ_ONLY: &str = "this web server is read-only (--read-only): it sends nothing to panes";

impl App {
    /// Does what a page asked of `pane`, unless this server is
    /// read-only.
    pub async fn act(&self, pane: &str, action: Action) -> Outcome {
        if self.read_only {
            return Outcome::refused(READ_ONLY);
        }
        let endpoint = self.endpoint.clone();
        let pane = pane.to_string();
        tokio::task::spawn_blocking(move || actions::run(&endpoint, &pane, action))
            .await
            .unwrap_or_else(|e| Outcome::refused(e.to_string()))
    }
}

/// A poisoned lock only means a handler panicked while holding it; the
/// maps it guards are still whole.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(dashboard))
        .route("/login", get(login_page).post(login))
        .route("/logout", post(logout))
        .route("/pane/{id}", get(pane_page))
        .route("/api/session", get(session_status))
        .route("/api/pane/{id}", post(pane_action))
        .route("/ws/events", get(events_socket))
        .route("/ws/pane/{id}", get(pane_socket))
        .route("/assets/{*file}", get(asset))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(app)
}

/// The address a request came from (for the login limit), over plain
/// TCP or TLS.
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);

impl Connected<IncomingStream<'_, TcpListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, TcpListener>) -> Peer {
        Peer(*stream.remote_addr())
    }
}

impl Connected<IncomingStream<'_, TlsListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, TlsListener>) -> Peer {
        Peer(*stream.remote_addr())
    }
}

/// Headers on every answer: no framing by another site, no sniffing, no
/// referrer to other sites, scripts and styles from here only, nothing
/// cached. `same-origin`, not `no-referrer`: under `no-referrer` a browser
/// sends `Origin: null` on its own form POSTs, which the Origin check
/// (rightly) refuses.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let set = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
             connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; \
             form-action 'self'; base-uri 'none'",
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
    ];
    for (name, value) in set {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

/// The value of the session cookie, from any `Cookie` header.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == COOKIE).then_some(value)
        })
}

/// Whether the request comes from a page of this very site: its `Origin`
/// names the host the request was sent to. A page of another site (which
/// could otherwise make the browser send the cookie along) carries its
/// own origin; a request with none is refused too.
pub fn same_origin(headers: &HeaderMap) -> bool {
    let (Some(origin), Some(host)) = (
        headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()),
        headers.get(header::HOST).and_then(|v| v.to_str().ok()),
    ) else {
        return false;
    };
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    authority.is_some_and(|authority| authority.eq_ignore_ascii_case(host))
}

fn forbidden() -> Response {
    (
        StatusCode::FORBIDDEN,
        "refused: this request must come from a page of this site (its Origin must match the Host)\n",
    )
        .into_response()
}

fn unauthorized() -> Response {
    (StatusCode::UNAUTHORIZED, "log in first: /login\n").into_response()
}

fn to_login() -> Response {
    (StatusCode::SEE_OTHER, [(header::LOCATION, "/login")]).into_response()
}

async fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found\n").into_response()
}

fn html(page: impl Into<axum::body::Body>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page.into(),
    )
        .into_response()
}

async fn dashboard(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match app.session(&headers) {
        Some(_) => html(assets::DASHBOARD_HTML),
        None => to_login(),
    }
}

async fn pane_page(
    State(app): State<Arc<App>>,
    Path(_id): Path<String>,
    headers: HeaderMap,
) -> Response {
    match app.session(&headers) {
        Some(_) => html(assets::PANE_HTML),
        None => to_login(),
    }
}

async fn session_status(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match app.session(&headers) {
        Some(_) => StatusCode::NO_CONTENT.into_response(),
        None => unauthorized(),
    }
}

/// An [`Action`] posted by a page of this site with a session; its
/// [`Outcome`] as JSON (422 when the server refused it).
async fn pane_action(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    action: Result<axum::Json<Action>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if !same_origin(&headers) {
        return forbidden();
    }
    if app.session(&headers).is_none() {
        return unauthorized();
    }
    let action = match action {
        Ok(axum::Json(action)) => action,
        Err(rejection) => return rejection.into_response(),
    };
    let outcome = app.act(&id, action).await;
    let status = if outcome.ok {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    (status, axum::Json(outcome)).into_response()
}

async fn login_page() -> Response {
    html(assets::login_page(false))
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(
    State(app): State<Arc<App>>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    headers: HeaderMap,
    form: Result<axum::Form<LoginForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    if !same_origin(&headers) {
        return forbidden();
    }
    let form = match form {
        Ok(axum::Form(form)) => form,
        Err(rejection) => return rejection.into_response(),
    };
    let now = Instant::now();
    let address = peer.ip();
    if let Some(wait) = lock(&app.logins).wait(address, now) {
        let seconds = wait.as_secs().max(1);
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, seconds.to_string())],
            format!("too many wrong tokens from {address}: try again in {seconds} s\n"),
        )
            .into_response();
    }
    let token = match app.token_file.read() {
        Ok(token) => token,
        Err(e) => {
            eprintln!("signaltty web: {e}");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the token file cannot be read; see the web server's output\n",
            )
                .into_response();
        }
    };
    if !token.matches(&form.token) {
        lock(&app.logins).failed(address, now);
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            assets::login_page(true),
        )
            .into_response();
    }
    lock(&app.logins).succeeded(address);
    let id = match lock(&app.sessions).open(token, now) {
        Ok(id) => id,
        Err(e) => {
            return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response();
        }
    };
    let cookie = session_cookie_header(&id, SESSION_LIFETIME.as_secs(), app.secure);
    (
        StatusCode::SEE_OTHER,
        [(header::SET_COOKIE, cookie), (header::LOCATION, "/".into())],
    )
        .into_response()
}

/// The `Set-Cookie` value of a session (`Max-Age=0` ends it); `Secure`
/// under TLS, so a browser never sends it in clear.
fn session_cookie_header(id: &str, max_age: u64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{secure}")
}

async fn logout(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if !same_origin(&headers) {
        return forbidden();
    }
    if let Some(id) = session_cookie(&headers) {
        lock(&app.sessions).close(id);
    }
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, session_cookie_header("", 0, app.secure)),
            (header::LOCATION, "/login".into()),
        ],
    )
        .into_response()
}

/// The checks a WebSocket upgrade passes before it is one: the origin,
/// then the session; the session's token, which the socket watches.
fn socket_checks(
    app: &App,
    headers: &HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<(WebSocketUpgrade, Token), Response> {
    if !same_origin(headers) {
        return Err(forbidden());
    }
    let Some(token) = app.session(headers) else {
        return Err(unauthorized());
    };
    let upgrade = upgrade.map_err(IntoResponse::into_response)?;
    Ok((
        upgrade
            .max_message_size(MAX_WS_MESSAGE)
            .max_frame_size(MAX_WS_MESSAGE),
        token,
    ))
}

async fn events_socket(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    match socket_checks(&app, &headers, upgrade) {
        Ok((upgrade, token)) => {
            upgrade.on_upgrade(move |socket| crate::sockets::events(app, socket, token))
        }
        Err(response) => response,
    }
}

async fn pane_socket(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    match socket_checks(&app, &headers, upgrade) {
        Ok((upgrade, token)) => {
            upgrade.on_upgrade(move |socket| crate::sockets::pane(app, socket, token, id))
        }
        Err(response) => response,
    }
}

async fn asset(Path(file): Path<String>) -> Response {
    match assets::file(&file) {
        Some((content_type, body)) => (
            [
                (header::CONTENT_TYPE, content_type),
                (header::CACHE_CONTROL, "private, max-age=3600"),
            ],
            body,
        )
            .into_response(),
        None => not_found().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn only_a_page_of_this_site_is_its_origin() {
        let ok = headers(&[
            ("host", "127.0.0.1:7681"),
            ("origin", "http://127.0.0.1:7681"),
        ]);
        assert!(same_origin(&ok));
        let proxied = headers(&[
            ("host", "box.tail.ts.net"),
            ("origin", "https://box.tail.ts.net"),
        ]);
        assert!(same_origin(&proxied));
        for foreign in [
            headers(&[
                ("host", "127.0.0.1:7681"),
                ("origin", "http://evil.example"),
            ]),
            headers(&[
                ("host", "127.0.0.1:7681"),
                ("origin", "http://127.0.0.1:7682"),
            ]),
            headers(&[("host", "127.0.0.1:7681"), ("origin", "null")]),
            headers(&[("host", "127.0.0.1:7681")]),
            headers(&[("origin", "http://127.0.0.1:7681")]),
        ] {
            assert!(!same_origin(&foreign), "{foreign:?}");
        }
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let h = headers(&[("cookie", "a=1; signaltty_session=abc; b=2")]);
        assert_eq!(session_cookie(&h), Some("abc"));
        let h = headers(&[("cookie", "a=1"), ("cookie", "signaltty_session=x")]);
        assert_eq!(session_cookie(&h), Some("x"));
        assert_eq!(
            session_cookie(&headers(&[("cookie", "xsignaltty_session=1")])),
            None
        );
    }
}
