//! The `VALUES` list of a multi-row `INSERT` written out, for SQLite, where diesel's batch
//! insert is not available on the async wrapper.

/// `(?, ?), (?, ?)` for `rows` rows of `columns` values each.
pub(crate) fn placeholders(rows: usize, columns: usize) -> String {
    let row = format!("({})", vec!["?"; columns].join(", "));
    vec![row; rows].join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_group_of_placeholders_per_row() {
        assert_eq!(super::placeholders(1, 2), "(?, ?)");
        assert_eq!(super::placeholders(3, 1), "(?), (?), (?)");
    }
}
