//! `shop-api owner ...` and the console's credentials printed by `shop-api demo`, as an
//! operator uses them: passwords on standard input, refusals with exit status 2 and nothing
//! changed, and a demo whose printed e-mail and password sign in to the console it serves.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use super::Cli;

const PASSWORD: &str = "correct horse battery";

impl Cli {
    /// `shop-api args`, with `stdin` as its standard input.
    fn with_input(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run shop-api");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes())
            .expect("write stdin");
        child.wait_with_output().expect("wait")
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn an_owner_is_created_with_a_password_from_standard_input_and_listed() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let created = cli.with_input(
        &[
            "owner",
            "create",
            "--shop",
            "atelier",
            "--email",
            "Ana@Atelier.fr",
        ],
        &format!("{PASSWORD}\n"),
    );
    assert!(created.status.success(), "{}", stderr(&created));
    assert!(created.stdout.is_empty(), "nothing on stdout");
    assert!(
        !stderr(&created).contains(PASSWORD),
        "the password is never echoed"
    );

    let listing = cli.ok(&["owner", "list", "--shop", "atelier"]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines[0], "EMAIL\tCREATED\tDISABLED");
    assert!(
        lines[1].starts_with("ana@atelier.fr\t") && lines[1].ends_with("\t-"),
        "{listing}"
    );
    assert!(!listing.contains(PASSWORD));

    let again = cli.with_input(
        &[
            "owner",
            "create",
            "--shop",
            "atelier",
            "--email",
            "ANA@atelier.fr",
        ],
        &format!("{PASSWORD}\n"),
    );
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );

    cli.ok(&["owner", "disable", "--email", "ana@atelier.fr"]);
    let listing = cli.ok(&["owner", "list", "--shop", "atelier"]);
    assert!(
        !listing.lines().nth(1).unwrap_or_default().ends_with("\t-"),
        "{listing}"
    );
}

#[test]
fn short_passwords_unknown_shops_and_owners_are_refused_with_exit_2() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let short = cli.with_input(
        &[
            "owner",
            "create",
            "--shop",
            "atelier",
            "--email",
            "ana@atelier.fr",
        ],
        "elevenchars\n",
    );
    assert_eq!(short.status.code(), Some(2));
    let message = stderr(&short);
    assert!(message.contains("at least 12 characters"), "{message}");
    assert_eq!(
        message.trim().lines().count(),
        1,
        "one clear line: {message}"
    );

    // Refused before a password is read: standard input is not even opened.
    let unknown = cli.with_input(
        &[
            "owner",
            "create",
            "--shop",
            "nowhere",
            "--email",
            "ana@atelier.fr",
        ],
        "",
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("nowhere"), "{}", stderr(&unknown));

    let disable = cli.run(&["owner", "disable", "--email", "nobody@atelier.fr"]);
    assert_eq!(disable.status.code(), Some(2));
    let bad_email = cli.run(&["owner", "disable", "--email", "not-an-address"]);
    assert_eq!(bad_email.status.code(), Some(2));

    let listing = cli.ok(&["owner", "list", "--shop", "atelier"]);
    assert_eq!(listing.lines().count(), 1, "nothing was created: {listing}");
}

#[test]
fn disabling_an_owner_lists_the_shops_keys_that_keep_working_and_how_to_revoke_them() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let created = cli.with_input(
        &[
            "owner",
            "create",
            "--shop",
            "atelier",
            "--email",
            "ana@atelier.fr",
        ],
        &format!("{PASSWORD}\n"),
    );
    assert!(created.status.success(), "{}", stderr(&created));
    let prefix_of = |key: &str| key[9..17].to_owned();
    let erp = prefix_of(&cli.key("atelier", "products:read,stock:write"));
    let till = cli.ok(&[
        "key",
        "create",
        "--shop",
        "atelier",
        "--label",
        "Caisse \u{202e}gnp",
        "--scopes",
        "orders:read",
    ]);
    let till = prefix_of(till.trim());
    let gone = prefix_of(&cli.key("atelier", "products:read"));
    cli.ok(&["key", "revoke", &gone]);

    let disabled = cli.run(&["owner", "disable", "--email", "ana@atelier.fr"]);
    assert!(disabled.status.success(), "{}", stderr(&disabled));
    let listing = String::from_utf8(disabled.stdout.clone()).expect("utf-8");
    let mut rows: Vec<&str> = listing.lines().skip(1).collect();
    rows.sort_unstable();
    let mut expected = vec![
        format!("{erp}\tERP\tproducts:read,stock:write"),
        format!("{till}\tCaisse \\u{{202e}}gnp\torders:read"),
    ];
    expected.sort_unstable();
    assert_eq!(listing.lines().next(), Some("PREFIX\tLABEL\tSCOPES"));
    assert_eq!(
        rows, expected,
        "the active keys only, labels escaped: {listing}"
    );
    let told = stderr(&disabled);
    assert!(told.contains("still work"), "{told}");
    assert!(told.contains("shop-api key revoke <prefix>"), "{told}");
}

/// The `Key: value` lines `demo` prints.
fn printed(lines: &[String], label: &str) -> String {
    lines
        .iter()
        .find_map(|line| line.strip_prefix(label))
        .map(|value| value.trim().to_owned())
        .unwrap_or_else(|| panic!("no `{label}` line in {lines:?}"))
}

/// `POST path` with a form, over a plain HTTP/1.1 connection: the status and the raw head.
fn post_form(address: &str, path: &str, form: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{form}",
        form.len()
    )
    .expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read");
    let status = reply
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let head = reply
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_owned();
    (status, head)
}

#[test]
fn demo_prints_the_console_and_credentials_that_sign_in() {
    let cli = Cli::new();
    let run = |expect_new_password_from: Option<String>| {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let mut demo = cli
            .command()
            .args(["demo", "--bind", &format!("127.0.0.1:{port}")])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start shop-api demo");
        let mut lines = Vec::new();
        let mut stdout = BufReader::new(demo.stdout.take().expect("stdout"));
        let deadline = Instant::now() + Duration::from_secs(120);
        while !lines
            .iter()
            .any(|line: &String| line.starts_with("Password:"))
        {
            assert!(Instant::now() < deadline, "demo printed {lines:?}");
            let mut line = String::new();
            if stdout.read_line(&mut line).expect("read stdout") == 0 {
                panic!("demo exited after printing {lines:?}");
            }
            lines.push(line.trim_end().to_owned());
        }
        let console = printed(&lines, "Owner console:");
        let email = printed(&lines, "E-mail:");
        let password = printed(&lines, "Password:");
        assert_eq!(console, format!("http://127.0.0.1:{port}/console/login"));
        assert_eq!(email, "owner@demo.example");
        assert!(password.len() >= 12, "{password}");
        if let Some(previous) = &expect_new_password_from {
            assert_ne!(&password, previous, "a fresh password every run");
        }

        let address = format!("127.0.0.1:{port}");
        let form = format!("email={}&password={password}", email.replace('@', "%40"));
        let (status, head) = post_form(&address, "/console/login", &form);
        assert_eq!(status, 303, "{head}");
        assert!(head.contains("location: /console\r\n"), "{head}");
        assert!(head.contains("shop_console_session="), "{head}");
        let _ = demo.kill();
        let _ = demo.wait();
        password
    };
    let first = run(None);
    run(Some(first));
}
