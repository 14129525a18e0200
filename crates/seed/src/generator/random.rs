//! The seeded random source, and the few ways the generator draws from it.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use shop_domain::Timestamp;

/// Independent streams of one seed, one per kind of row, so that a change in how one kind is
/// drawn leaves the others as they were.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Catalogue = 1,
    Clients = 2,
    Orders = 3,
}

/// A deterministic random source. ChaCha8 is portable: the same seed draws the same values on
/// every platform and build.
pub struct Draw(ChaCha8Rng);

impl Draw {
    pub fn new(seed: u64, stream: Stream) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream as u64);
        Self(rng)
    }

    /// Uniform in `low..=high`.
    pub fn between(&mut self, low: i64, high: i64) -> i64 {
        self.0.random_range(low..=high)
    }

    /// Uniform in `0..len`; `len` must not be 0.
    pub fn index(&mut self, len: usize) -> usize {
        self.0.random_range(0..len)
    }

    /// True `percent` times in a hundred.
    pub fn percent(&mut self, percent: u32) -> bool {
        self.0.random_ratio(percent.min(100), 100)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// One of `choices`, each as likely as its weight.
    pub fn weighted<T: Copy>(&mut self, choices: &[(T, u32)]) -> T {
        let total: u32 = choices.iter().map(|(_, weight)| weight).sum();
        let mut roll = self.0.random_range(0..total.max(1));
        for &(choice, weight) in choices {
            if roll < weight {
                return choice;
            }
            roll -= weight;
        }
        choices[choices.len() - 1].0
    }

    /// An index in `0..len` that favours the low ones: the square of a uniform draw, so the
    /// first quarter gets half the picks (best sellers, regular clients).
    pub fn skewed_index(&mut self, len: usize) -> usize {
        let unit: u64 = self.0.random_range(0..1 << 20);
        let squared = unit * unit; // below 2^40
        ((squared as u128 * len as u128) >> 40) as usize
    }

    /// A moment in `from..=to`, or `from` when the span is empty.
    pub fn moment(&mut self, from: Timestamp, to: Timestamp) -> Timestamp {
        if to <= from {
            return from;
        }
        Timestamp::from_millis(self.between(from.millis(), to.millis()))
    }
}

/// Spreads `count` rows over `from..to` in index order: row `i` starts its slot at
/// `slot_start(i)`, and slots follow one another without overlap.
#[derive(Clone, Copy, Debug)]
pub struct Timeline {
    pub from: Timestamp,
    pub to: Timestamp,
    pub count: usize,
}

impl Timeline {
    pub fn slot_start(&self, index: usize) -> Timestamp {
        let span = i128::from(self.to.millis_since(self.from));
        let count = self.count.max(1) as i128;
        let offset = span * index as i128 / count;
        self.from.plus_millis(offset as i64)
    }

    /// A moment inside row `index`'s slot: increasing with the index.
    pub fn moment(&self, index: usize, draw: &mut Draw) -> Timestamp {
        let start = self.slot_start(index);
        let next = self.slot_start(index + 1);
        draw.moment(start, next.plus_millis(-1).max(start))
    }

    /// How many rows' slots end at or before `at`: those rows exist at `at`.
    pub fn existing_at(&self, at: Timestamp) -> usize {
        let span = i128::from(self.to.millis_since(self.from)).max(1);
        let elapsed = i128::from(at.millis_since(self.from)).max(0);
        let count = self.count as i128;
        usize::try_from((elapsed * count / span).min(count)).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_and_stream_draw_the_same_values() {
        let draws = |seed, stream| {
            let mut draw = Draw::new(seed, stream);
            (0..8)
                .map(|_| draw.between(0, 1_000_000))
                .collect::<Vec<_>>()
        };
        assert_eq!(draws(1, Stream::Orders), draws(1, Stream::Orders));
        assert_ne!(draws(1, Stream::Orders), draws(2, Stream::Orders));
        assert_ne!(draws(1, Stream::Orders), draws(1, Stream::Clients));
    }

    #[test]
    fn skewed_indexes_stay_in_range_and_favour_the_first_ones() {
        let mut draw = Draw::new(7, Stream::Orders);
        let picks: Vec<usize> = (0..10_000).map(|_| draw.skewed_index(100)).collect();
        assert!(picks.iter().all(|&i| i < 100));
        let first_quarter = picks.iter().filter(|&&i| i < 25).count();
        assert!((4_500..5_500).contains(&first_quarter), "{first_quarter}");
    }

    #[test]
    fn a_row_exists_once_its_slot_is_over() {
        let line = Timeline {
            from: Timestamp::from_millis(1_000),
            to: Timestamp::from_millis(2_000),
            count: 10,
        };
        let mut draw = Draw::new(1, Stream::Clients);
        for index in 0..10 {
            let at = line.moment(index, &mut draw);
            assert!(at >= line.slot_start(index) && at < line.slot_start(index + 1));
            // Every row counted as existing at `at` was created at or before it.
            assert!(line.existing_at(at) <= index);
        }
        assert_eq!(line.existing_at(Timestamp::from_millis(2_000)), 10);
        assert_eq!(line.existing_at(Timestamp::from_millis(0)), 0);
    }
}
