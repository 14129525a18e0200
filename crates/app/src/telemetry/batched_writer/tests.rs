use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::{BatchedWriter, GATHER};

/// An output that keeps what was written and counts the `write_all` calls that carried it.
#[derive(Clone, Default)]
struct Recorded {
    bytes: Arc<Mutex<Vec<u8>>>,
    writes: Arc<Mutex<usize>>,
}

impl Recorded {
    fn text(&self) -> String {
        String::from_utf8(self.bytes.lock().unwrap().clone()).unwrap()
    }

    fn writes(&self) -> usize {
        *self.writes.lock().unwrap()
    }
}

impl Write for Recorded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.bytes.lock().unwrap().extend_from_slice(buf);
        *self.writes.lock().unwrap() += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn log(writer: &BatchedWriter, line: &str) {
    (&*writer).write_all(line.as_bytes()).unwrap();
}

#[test]
fn every_line_of_every_thread_is_written_even_when_the_queue_is_full() {
    let out = Recorded::default();
    // Two pending lines for 4 × 500: the loggers wait for the writer most of the time.
    let (writer, guard) = BatchedWriter::spawn(out.clone(), 2).unwrap();
    let loggers: Vec<_> = (0..4)
        .map(|t| {
            let writer = writer.clone();
            thread::spawn(move || {
                for i in 0..500 {
                    log(&writer, &format!("t{t} line {i}\n"));
                }
            })
        })
        .collect();
    for logger in loggers {
        logger.join().unwrap();
    }
    drop(guard);

    let text = out.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2_000);
    for t in 0..4 {
        // Each thread's lines arrive whole and in its own order.
        let own: Vec<String> = lines
            .iter()
            .filter(|line| line.starts_with(&format!("t{t} ")))
            .map(|line| (*line).to_owned())
            .collect();
        let expected: Vec<String> = (0..500).map(|i| format!("t{t} line {i}")).collect();
        assert_eq!(own, expected);
    }
}

#[test]
fn a_steady_trickle_of_lines_is_written_at_most_once_per_gather() {
    let out = Recorded::default();
    let (writer, guard) = BatchedWriter::spawn(out.clone(), 4096).unwrap();
    let started = Instant::now();
    for i in 0..200 {
        log(&writer, &format!("line {i}\n"));
        thread::sleep(Duration::from_micros(500));
    }
    let elapsed = started.elapsed();
    drop(guard);
    assert_eq!(out.text().lines().count(), 200);
    // The writer before wrote every line or two as it came (200 writes here); a slower
    // machine makes the loop longer and the bound larger alike.
    let most = elapsed.as_millis() / GATHER.as_millis() + 2;
    assert!(
        out.writes() as u128 <= most,
        "{} writes in {elapsed:?}, at most {most} expected",
        out.writes()
    );
}

#[test]
fn a_quiet_servers_line_appears_without_waiting_for_more() {
    let out = Recorded::default();
    let (writer, _guard) = BatchedWriter::spawn(out.clone(), 16).unwrap();
    log(&writer, "alone\n");
    let started = Instant::now();
    while out.text().is_empty() && started.elapsed() < Duration::from_secs(5) {
        thread::sleep(Duration::from_millis(5));
    }
    // Written while the guard (and the writer) live on: nothing waits for a next line.
    assert_eq!(out.text(), "alone\n");
    assert_eq!(out.writes(), 1);
}

#[test]
fn dropping_the_guard_writes_what_is_pending_and_stops_the_thread() {
    let out = Recorded::default();
    let (writer, guard) = BatchedWriter::spawn(out.clone(), 16).unwrap();
    log(&writer, "last words\n");
    drop(guard);
    assert_eq!(out.text(), "last words\n");
    assert!((&writer).write_all(b"too late\n").is_err());
}
