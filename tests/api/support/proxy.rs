//! A TCP proxy that a test can cut and restore: the database "gone" and "back" without
//! touching the shared PostgreSQL server.
//!
//! Cut: every open connection is closed and new ones are closed as soon as accepted, which a
//! client sees as a connection lost (for a pooled connection) or failing at once (for a new
//! one). Restored: connections go through again.

use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct Proxy {
    pub addr: SocketAddr,
    open: watch::Sender<bool>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Listens on a free loopback port and forwards to `target`.
    pub async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy port");
        let addr = listener.local_addr().expect("proxy address");
        let (open, watching) = watch::channel(true);
        let accepting = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if *watching.borrow() {
                    tokio::spawn(forward(client, target, watching.clone()));
                }
            }
        });
        Self {
            addr,
            open,
            accepting,
        }
    }

    pub fn cut(&self) {
        self.open.send_replace(false);
    }

    pub fn restore(&self) {
        self.open.send_replace(true);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

async fn forward(mut client: TcpStream, target: SocketAddr, mut open: watch::Receiver<bool>) {
    let Ok(mut server) = TcpStream::connect(target).await else {
        return;
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
        _ = open.wait_for(|open| !open) => {}
    }
}
