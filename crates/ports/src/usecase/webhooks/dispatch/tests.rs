//! The dispatcher against mocked ports.
