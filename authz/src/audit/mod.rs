//! The audit log: one append-only row per state-changing operation (and per sign-in attempt).
//!
//! Rows are written by the same store method, in the same transaction, as the change they record.
//! No code path updates or deletes them; the migrations add triggers that refuse it (row
//! `UPDATE`/`DELETE` and, on PostgreSQL, `TRUNCATE`).
#[cfg(test)]
mod completeness;
mod export;
mod model;
mod ops;

pub use export::{to_csv, to_json_lines};
pub use model::*;
