//! The sync contract played out: writers on several instances stamp rows and commit late (up
//! to the bounds of `super`), one integrator pages with `updatedSince` from its checkpoints,
//! and its mirror must never lack a change.

use proptest::prelude::*;

use super::*;

/// Instants on the true time line, in milliseconds.
#[derive(Clone, Debug)]
struct Write {
    row: u8,
    /// When the writer stamped the row, true time.
    started: i64,
    /// Stamp to commit; the writers' rule bounds it by `MAX_WRITE_SPAN_MS`.
    span: i64,
    /// The writing instance's clock minus true time.
    clock_offset: i64,
}

impl Write {
    fn stamp(&self) -> Timestamp {
        Timestamp::from_millis(self.started + self.clock_offset)
    }

    fn committed(&self) -> i64 {
        self.started + self.span
    }
}

/// A stored row: its id, `updatedAt`, and which write made this version (the index in commit
/// order, so that a later version has a larger one).
#[derive(Clone, Copy, Debug)]
struct Version {
    row: u8,
    updated_at: Timestamp,
    write: usize,
}

/// The rows as a read at true time `at` sees them: the last version committed before it.
fn visible(writes_in_commit_order: &[Write], at: i64) -> Vec<Version> {
    let mut rows: Vec<Option<Version>> = vec![None; 256];
    for (write, w) in writes_in_commit_order.iter().enumerate() {
        if w.committed() < at {
            rows[usize::from(w.row)] = Some(Version {
                row: w.row,
                updated_at: w.stamp(),
                write,
            });
        }
    }
    rows.into_iter().flatten().collect()
}

struct Integrator {
    clock_offset: i64,
    page_size: usize,
    page_interval: i64,
    checkpoint: Option<Timestamp>,
    /// Per row, the write whose version the mirror holds.
    mirror: Vec<Option<usize>>,
}

impl Integrator {
    /// One sync run whose first page is read at true time `start`; returns the true time of
    /// its last read. Without a checkpoint, the first run walks the list in its usual order
    /// (by id here, where a row never moves); later runs walk by `(updatedAt, id)` from the
    /// checkpoint, as the API does under `updatedSince`.
    fn sync(&mut self, writes: &[Write], start: i64) -> i64 {
        let since = self.checkpoint;
        let mut first_checkpoint = None;
        let mut after: Option<(Timestamp, u8)> = None;
        let mut at = start;
        for _ in 0..10_000 {
            let read_started = Timestamp::from_millis(at + self.clock_offset);
            first_checkpoint.get_or_insert(checkpoint(read_started));
            let mut rows: Vec<Version> = visible(writes, at)
                .into_iter()
                .filter(|v| since.is_none_or(|since| v.updated_at >= since))
                .collect();
            match since {
                Some(_) => {
                    rows.retain(|v| after.is_none_or(|position| (v.updated_at, v.row) > position));
                    rows.sort_by_key(|v| (v.updated_at, v.row));
                }
                None => {
                    rows.retain(|v| after.is_none_or(|(_, row)| v.row > row));
                    rows.sort_by_key(|v| v.row);
                }
            }
            for version in &rows {
                assert!(since.is_none_or(|since| version.updated_at >= since));
            }
            let has_more = rows.len() > self.page_size;
            rows.truncate(self.page_size);
            for version in &rows {
                // Later reads overwrite: they saw a later state.
                self.mirror[usize::from(version.row)] = Some(version.write);
            }
            match rows.last() {
                Some(last) if has_more => after = Some((last.updated_at, last.row)),
                _ => break,
            }
            at += self.page_interval;
        }
        self.checkpoint = first_checkpoint;
        at
    }
}

fn writes() -> impl Strategy<Value = Vec<Write>> {
    let skew = CLOCK_SKEW_ALLOWANCE_MS / 2;
    prop::collection::vec(
        (0u8..6, 0i64..300_000, 0..=MAX_WRITE_SPAN_MS, -skew..=skew).prop_map(
            |(row, started, span, clock_offset)| Write {
                row,
                started,
                span,
                clock_offset,
            },
        ),
        1..40,
    )
}

/// Plays the runs starting at `starts` (sorted), then one after every write has committed,
/// and checks the mirror after each: every version committed before a run's first read is in
/// the mirror after that run, or a newer one is, or the row changed again after that read
/// (the next run brings that). The last run leaves the mirror equal to the table.
fn check(
    mut writes: Vec<Write>,
    starts: Vec<i64>,
    clock_offset: i64,
    page_size: usize,
    page_interval: i64,
) -> Result<(), TestCaseError> {
    writes.sort_by_key(Write::committed);
    let mut integrator = Integrator {
        clock_offset,
        page_size,
        page_interval,
        checkpoint: None,
        mirror: vec![None; 256],
    };
    let quiet = writes.last().map_or(0, Write::committed) + 1;
    let mut not_before = 0;
    for start in starts.into_iter().chain([quiet]) {
        let start = start.max(not_before);
        let finished = integrator.sync(&writes, start);
        not_before = finished + 1;
        for version in visible(&writes, start) {
            let held = integrator.mirror[usize::from(version.row)];
            let superseded_later = writes
                .iter()
                .enumerate()
                .any(|(index, w)| w.row == version.row && index > version.write);
            prop_assert!(
                held.is_some_and(|held| held >= version.write) || superseded_later,
                "run at {start}: row {} lacks write {} (mirror holds {held:?})",
                version.row,
                version.write,
            );
        }
    }
    for version in visible(&writes, i64::MAX) {
        prop_assert_eq!(
            integrator.mirror[usize::from(version.row)],
            Some(version.write)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn no_change_is_missed(
        writes in writes(),
        mut starts in prop::collection::vec(0i64..400_000, 1..6),
        clock_offset in -(CLOCK_SKEW_ALLOWANCE_MS / 2)..=CLOCK_SKEW_ALLOWANCE_MS / 2,
        page_size in 1usize..4,
        page_interval in 0i64..20_000,
    ) {
        starts.sort_unstable();
        check(writes, starts, clock_offset, page_size, page_interval)?;
    }
}

/// The test can fail: a checkpoint at the read's own time loses a write that was stamped
/// before the read and committed after it.
#[test]
fn without_the_overlap_a_late_commit_is_lost() {
    let late = Write {
        row: 1,
        started: 10_000,
        span: 5_000,
        clock_offset: 0,
    };
    let mut integrator = Integrator {
        clock_offset: 0,
        page_size: 10,
        page_interval: 0,
        checkpoint: None,
        mirror: vec![None; 256],
    };
    let writes = [late.clone()];
    integrator.sync(&writes, 12_000);
    assert_eq!(integrator.mirror[1], None, "not committed yet at 12 s");
    // With the rule's checkpoint the next run sees it...
    let mut with_overlap = integrator.clone_state();
    with_overlap.sync(&writes, 20_000);
    assert_eq!(with_overlap.mirror[1], Some(0));
    // ...with the read's own time as checkpoint it never would.
    integrator.checkpoint = Some(Timestamp::from_millis(12_000));
    integrator.sync(&writes, 20_000);
    assert_eq!(integrator.mirror[1], None);
}

impl Integrator {
    fn clone_state(&self) -> Self {
        Self {
            clock_offset: self.clock_offset,
            page_size: self.page_size,
            page_interval: self.page_interval,
            checkpoint: self.checkpoint,
            mirror: self.mirror.clone(),
        }
    }
}

#[test]
fn updated_since_takes_an_instant_or_a_day() {
    assert_eq!(
        parse_updated_since("2026-11-21").map(Timestamp::to_rfc3339),
        Ok("2026-11-21T00:00:00.000Z".to_owned())
    );
    assert_eq!(
        parse_updated_since("2026-11-21T09:30:00.250+02:00").map(Timestamp::to_rfc3339),
        Ok("2026-11-21T07:30:00.250Z".to_owned())
    );
    for bad in ["yesterday", "2026-11-21T09:30:00", "2026-13-01", ""] {
        assert_eq!(parse_updated_since(bad), Err(InvalidUpdatedSince), "{bad}");
    }
}

#[test]
fn a_changed_cursor_is_not_the_lists_usual_cursor() {
    let cursor = changed_cursor(
        CursorKind::OrdersChanged,
        Timestamp::from_millis(5),
        "ord_1",
    );
    assert_eq!(
        changed_cursor_position(&cursor.encode(), CursorKind::OrdersChanged, |id| Some(
            id.to_owned()
        )),
        Ok((Timestamp::from_millis(5), "ord_1".to_owned()))
    );
    assert_eq!(
        changed_cursor_position(&cursor.encode(), CursorKind::ClientsChanged, |id| Some(
            id.to_owned()
        )),
        Err(InvalidCursor)
    );
    assert!(Cursor::decode(&cursor.encode(), CursorKind::Orders).is_err());
}
