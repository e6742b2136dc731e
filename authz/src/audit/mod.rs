//! The audit log: one append-only row per state-changing operation (and per sign-in attempt).
//!
//! Rows are written by the same store method, in the same transaction, as the change they record.
//! Rows of the token path that record no stored change (`token.exchange`) go through a batch
//! writer (`batch`): each caller waits until its row is committed, concurrent callers share a
//! transaction.
//! No code path updates or deletes them; the migrations add triggers that refuse it (row
//! `UPDATE`/`DELETE` and, on PostgreSQL, `TRUNCATE`).
mod batch;
#[cfg(test)]
mod completeness;
mod export;
mod model;
mod names;
mod ops;

pub(crate) use batch::{AuditBatcher, audit_batcher};
pub use export::{to_csv, to_json_lines};
pub use model::*;
