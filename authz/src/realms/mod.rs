//! Realms: the top-level tenant every row belongs to.
//!
//! A realm's issuer is `{public_url}/realms/{name}`. The realm `default` exists after first start;
//! it is also the administration realm that holds console accounts, so it cannot be disabled.
mod model;
mod ops;

pub use model::*;
