//! `signaltty web`: every pane in a browser and on a phone.
//!
//! This crate owns the web app: its HTTP routes and their checks
//! ([`http`]), what a page may ask of a pane ([`actions`]), a blocked
//! agent's dialog read as buttons ([`dialog`]), the login token ([`token`]), sessions and the login limit
//! ([`auth`]), where it may listen ([`listen`]), TLS off loopback ([`tls`]), the dashboard's listing
//! ([`listing`], fed by [`feed`]), the WebSockets that carry it and an
//! attached pane (`sockets`), and the pages with their scripts and the
//! vendored xterm.js, embedded in the binary (`assets`).
//!
//! It is a client of the server's socket, like `ctl`: everything it shows
//! and does is a request of the protocol, made through
//! `signaltty-client`'s connection (after its checks of the socket's
//! directory and the server's uid). It links nothing of the server stack
//! (actors, supervisor, persistence, adapters); `.ci/run` checks that with
//! `cargo tree`. Its only state is the token file; sessions live in the
//! process and end with it. It uses `anyhow` at the command line's edge
//! only, as the client crate does.

pub mod actions;
mod assets;
pub mod auth;
pub mod dialog;
pub mod feed;
pub mod http;
pub mod listen;
pub mod listing;
mod sockets;
pub mod tls;
pub mod token;

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use signaltty_client::cli::{Cli, Web, WebCmd};
use tokio::sync::watch;

use crate::token::{Token, TokenFile};

/// How often the token file is read to end the sockets of a rotated token
/// (requests read it themselves, each time).
const TOKEN_CHECK: Duration = Duration::from_secs(1);

/// Runs `signaltty web` (or `web token`) for the server `cli` names, with
/// the token in `state_dir`.
pub fn run(cli: &Cli, web: &Web, state_dir: &Path) -> Result<ExitCode> {
    let token_file = TokenFile::in_state_dir(state_dir);
    if let Some(WebCmd::Token { rotate }) = &web.command {
        let token = if *rotate {
            token_file.rotate()?
        } else {
            token_file.load_or_create()?
        };
        writeln!(std::io::stdout(), "{}", token.as_str())?;
        return Ok(ExitCode::SUCCESS);
    }
    let tls = match (&web.tls_cert, &web.tls_key) {
        (Some(cert), Some(key)) => Some(tls::acceptor(cert, key)?),
        _ => None,
    };
    if listen::check(web.listen, tls.is_some(), web.insecure_http)? {
        eprintln!("{}", listen::insecure_warning(web.listen));
    }
    let token = token_file.load_or_create()?;
    let endpoint = cli.endpoint()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the web server's runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(web.listen)
            .await
            .with_context(|| format!("could not listen on {}", web.listen))?;
        let address = listener.local_addr()?;
        let (tokens_tx, tokens) = watch::channel(Some(token));
        tokio::spawn(watch_token(token_file.clone(), tokens_tx));
        let listings = feed::start(endpoint.clone(), web.read_only);
        let app = Arc::new(http::App::new(
            endpoint,
            token_file,
            web.read_only,
            tls.is_some(),
            listings,
            tokens,
        ));
        say_where(address, tls.is_some(), web.read_only);
        let router = http::router(app);
        let served = match tls {
            Some(tls) => {
                let listener = tls::TlsListener::new(listener, tls)?;
                let service = router.into_make_service_with_connect_info::<http::Peer>();
                axum::serve(listener, service).await
            }
            None => {
                let service = router.into_make_service_with_connect_info::<http::Peer>();
                axum::serve(listener, service).await
            }
        };
        served.context("the web server failed")
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Where to point the browser, and how to log in. Never the token.
fn say_where(address: SocketAddr, tls: bool, read_only: bool) {
    let mode = if read_only { " (read-only)" } else { "" };
    let scheme = if tls { "https" } else { "http" };
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "signaltty web: listening on {scheme}://{address}/{mode}"
    );
    let _ = writeln!(
        out,
        "signaltty web: log in with the token `signaltty web token` prints"
    );
    let _ = out.flush();
}

/// Reads the token file every [`TOKEN_CHECK`] and publishes it when it
/// changes, for the sockets to end themselves.
async fn watch_token(file: TokenFile, publish: watch::Sender<Option<Token>>) {
    loop {
        tokio::time::sleep(TOKEN_CHECK).await;
        let file = file.clone();
        let current = tokio::task::spawn_blocking(move || file.read().ok())
            .await
            .ok()
            .flatten();
        publish.send_if_modified(|token| {
            let changed = *token != current;
            *token = current;
            changed
        });
        if publish.is_closed() {
            return;
        }
    }
}
