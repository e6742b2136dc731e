//! Shared console widgets.
pub mod card;
pub mod confirm;
pub mod copy;
pub mod field;
pub mod history;
pub mod layout;
pub mod pager;
pub mod picker;
pub mod scopes;
pub mod secret;
pub mod tabs;
pub mod toast;
pub mod ui;
