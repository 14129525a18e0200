//! A real TLS proxy in front of a test server, as the README's deployment puts one: nginx
//! (Debian's, installed by `.ci/run`) terminating TLS on `localhost` with a certificate made
//! for the test by `openssl`, and passing requests to the server over plain HTTP on loopback.
//!
//! Without nginx or openssl the test says it was skipped, and fails instead when
//! `REQUIRE_TLS_PROXY=1` (as in `.ci/run`).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct TlsProxy {
    nginx: Child,
    /// The certificate, key, configuration and nginx's own files.
    dir: tempfile::TempDir,
    pub port: u16,
}

impl TlsProxy {
    /// A free loopback port for the proxy, taken before the server starts, so that the
    /// server's `PUBLIC_URL` can name it.
    pub fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|addr| addr.port())
            .expect("a free port")
    }

    /// `nginx` and `openssl`, or `None` (after saying so) when either is missing.
    pub fn available() -> Option<(PathBuf, PathBuf)> {
        let found = |name: &str| {
            ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]
                .iter()
                .map(|dir| Path::new(dir).join(name))
                .find(|path| path.is_file())
        };
        let (nginx, openssl) = (found("nginx"), found("openssl"));
        if let (Some(nginx), Some(openssl)) = (&nginx, &openssl) {
            return Some((nginx.clone(), openssl.clone()));
        }
        let required = std::env::var("REQUIRE_TLS_PROXY").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "REQUIRE_TLS_PROXY=1 but nginx ({nginx:?}) or openssl ({openssl:?}) is missing"
        );
        eprintln!("SKIPPED behind a TLS proxy: no nginx or openssl (apt-get install nginx)");
        None
    }

    /// nginx on `https://localhost:{port}`, passing every request to `upstream` with the
    /// client's address in `X-Forwarded-For`.
    pub fn start(nginx: &Path, openssl: &Path, port: u16, upstream: SocketAddr) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = |name: &str| dir.path().join(name).display().to_string();
        let made = Command::new(openssl)
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            ])
            .args([
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost",
            ])
            .args(["-keyout", &path("key.pem"), "-out", &path("cert.pem")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run openssl");
        assert!(made.success(), "openssl could not make a certificate");
        let temp = |name: &str| format!("{name}_temp_path {};", path(name));
        let configuration = format!(
            "daemon off;\nmaster_process off;\nerror_log {error_log} warn;\npid {pid};\n\
             events {{ worker_connections 64; }}\n\
             http {{\n  access_log off;\n  {client_body} {proxy} {fastcgi} {uwsgi} {scgi}\n\
               server {{\n    listen 127.0.0.1:{port} ssl;\n    server_name localhost;\n\
                 ssl_certificate {cert};\n    ssl_certificate_key {key};\n\
                 location / {{\n      proxy_pass http://{upstream};\n\
                   proxy_set_header Host $http_host;\n\
                   proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n\
                   proxy_set_header X-Forwarded-Proto https;\n    }}\n  }}\n}}\n",
            error_log = path("error.log"),
            pid = path("nginx.pid"),
            client_body = temp("client_body"),
            proxy = temp("proxy"),
            fastcgi = temp("fastcgi"),
            uwsgi = temp("uwsgi"),
            scgi = temp("scgi"),
            cert = path("cert.pem"),
            key = path("key.pem"),
        );
        std::fs::write(dir.path().join("nginx.conf"), configuration).expect("nginx.conf");
        let nginx = Command::new(nginx)
            .args(["-p", &path(""), "-c", &path("nginx.conf")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        let mut proxy = Self { nginx, dir, port };
        proxy.wait_until_listening();
        proxy
    }

    fn wait_until_listening(&mut self) {
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            if let Ok(Some(status)) = self.nginx.try_wait() {
                panic!("nginx exited with {status}:\n{}", self.error_log());
            }
            assert!(
                Instant::now() < deadline,
                "nginx is not listening:\n{}",
                self.error_log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    /// The origin owners use: `PUBLIC_URL`.
    pub fn public_url(port: u16) -> String {
        format!("https://localhost:{port}")
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        let _ = self.nginx.kill();
        let _ = self.nginx.wait();
    }
}
