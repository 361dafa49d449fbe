//! TLS for the web app off loopback: a certificate and key read from PEM
//! files, and a listener that does each handshake on a task of its own.
//!
//! A handshake runs beside the accept loop, not in it, so one client that
//! stalls mid-handshake holds up no other; each has [`HANDSHAKE_TIMEOUT`].

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::serve::Listener;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;

/// How long a client has to finish its handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Finished handshakes waiting for the server to take them.
const READY_BOUND: usize = 64;
/// Handshakes under way at once; past it the accept loop waits, so
/// stalled clients cannot pile up tasks (each ends within the timeout).
const MAX_HANDSHAKES: usize = 128;

/// Why the certificate or key cannot be used. (`reason`, not `source`:
/// the message says it, and the binary prints sources after it.)
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error(
        "cannot read a PEM certificate chain from {path}: {reason}; pass --tls-cert a PEM file (e.g. fullchain.pem)"
    )]
    Cert {
        path: PathBuf,
        reason: tokio_rustls::rustls::pki_types::pem::Error,
    },
    #[error(
        "{0} holds no certificate; pass --tls-cert a PEM file with at least one CERTIFICATE block"
    )]
    NoCert(PathBuf),
    #[error(
        "cannot read a PEM private key from {path}: {reason}; pass --tls-key the key of the certificate (PKCS#8, PKCS#1 or SEC1)"
    )]
    Key {
        path: PathBuf,
        reason: tokio_rustls::rustls::pki_types::pem::Error,
    },
    #[error("the certificate and key cannot be used together: {0}")]
    Config(#[from] tokio_rustls::rustls::Error),
}

/// The acceptor for the certificate chain at `cert` and the key at `key`.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|reason| TlsError::Cert {
            path: cert.to_path_buf(),
            reason,
        })?;
    if chain.is_empty() {
        return Err(TlsError::NoCert(cert.to_path_buf()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|reason| TlsError::Key {
        path: key.to_path_buf(),
        reason,
    })?;
    // ring, not aws-lc-rs: no cmake and no large C build for every
    // `cargo install`. rustls 0.23.48 deprecates it for lacking
    // post-quantum key exchange; TLS 1.3 with X25519 is what it offers.
    #[allow(deprecated)]
    let provider = ring::default_provider();
    let config = ServerConfig::builder_with_provider(Arc::new(provider))
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Connections that finished their handshake, for `axum::serve`.
pub struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    /// Accepts on `tcp` and shakes hands with `acceptor`, from now on.
    pub fn new(tcp: TcpListener, acceptor: TlsAcceptor) -> io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (ready_tx, ready) = mpsc::channel(READY_BOUND);
        tokio::spawn(accept_loop(tcp, acceptor, ready_tx));
        Ok(TlsListener { ready, local })
    }
}

async fn accept_loop(
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    ready: mpsc::Sender<(TlsStream<TcpStream>, SocketAddr)>,
) {
    let handshakes = Arc::new(tokio::sync::Semaphore::new(MAX_HANDSHAKES));
    loop {
        let Ok(permit) = Arc::clone(&handshakes).acquire_owned().await else {
            return;
        };
        let (stream, peer) = match tcp.accept().await {
            Ok(accepted) => accepted,
            // Out of descriptors and the like: wait, as axum's own loop does.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let acceptor = acceptor.clone();
        let ready = ready.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream));
            // A failed or slow handshake (plain HTTP, a scanner) is dropped.
            if let Ok(Ok(tls)) = handshake.await {
                let _ = ready.send((tls, peer)).await;
            }
        });
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(ready) => ready,
            // The accept loop never ends while this listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_are_not_pem_are_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let cert = dir.path().join("cert.pem");
        let key = dir.path().join("key.pem");
        std::fs::write(&cert, "not a certificate").unwrap();
        std::fs::write(&key, "not a key").unwrap();
        let err = acceptor(&cert, &key).err().unwrap().to_string();
        assert!(
            err.contains("cert.pem") && err.contains("no certificate"),
            "{err}"
        );
        let missing = acceptor(&dir.path().join("gone.pem"), &key)
            .err()
            .unwrap()
            .to_string();
        assert!(
            missing.contains("gone.pem") && missing.contains("--tls-cert"),
            "{missing}"
        );
        assert!(!missing.contains('\n'));
    }

    fn fixture_acceptor() -> TlsAcceptor {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/web-tls");
        acceptor(&fixtures.join("cert.pem"), &fixtures.join("key.pem")).expect("the fixture")
    }

    /// Plain HTTP, which a handshake refuses: the connection is closed
    /// once the server shakes hands with it. True if it was closed in
    /// `within`.
    async fn plain_http_closed(addr: SocketAddr, within: Duration) -> bool {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream
            .write_all(b"GET / HTTP/1.1\r\n\r\n")
            .await
            .expect("send");
        let until_closed = async {
            let mut buf = [0u8; 256];
            while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
        };
        tokio::time::timeout(within, until_closed).await.is_ok()
    }

    #[tokio::test]
    async fn clients_stalled_mid_handshake_hold_at_most_its_bound_and_free_it_when_they_go() {
        let tcp = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let listener = TlsListener::new(tcp, fixture_acceptor()).expect("listen");
        let addr = listener.local;
        let mut stalled = Vec::new();
        for _ in 0..MAX_HANDSHAKES - 1 {
            stalled.push(TcpStream::connect(addr).await.expect("connect"));
        }
        // One place left: a handshake runs, and refuses plain HTTP.
        let deadline = Duration::from_secs(10);
        assert!(plain_http_closed(addr, deadline).await);
        // Every place taken: the next client waits in the backlog, unanswered.
        stalled.push(TcpStream::connect(addr).await.expect("connect"));
        assert!(!plain_http_closed(addr, Duration::from_millis(500)).await);
        // One stalled client leaves: its place is free again.
        let waiting = tokio::spawn(plain_http_closed(addr, deadline));
        drop(stalled.pop());
        assert!(waiting.await.expect("no panic"));
    }
}
