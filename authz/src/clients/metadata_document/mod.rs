//! Client ID Metadata Documents: the rules a document and its URL must follow (`model.rs`,
//! pure) and fetching, trusting and registering the client it names (`ops.rs`).
mod model;
mod ops;

pub use model::{MAX_METADATA_DOCUMENT_BYTES, check_metadata_document, is_metadata_document_id};
pub(crate) use ops::trusted_for_machine_access;
