//! What validation finds, each naming the field it is about (`package.version`,
//! `servers[2].tools.deny[0]`): errors refuse the input, warnings are shown beside it.
use serde::{Deserialize, Serialize};

/// One finding about one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The field, as a path into the input (`headers.Authorization`, `servers[0].id`).
    pub field: String,
    /// What is wrong, or what to know, in words fit for the user.
    pub message: String,
}

/// Errors and warnings of one validation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Findings {
    /// What makes the input unacceptable.
    pub errors: Vec<Finding>,
    /// What is accepted but weaker than it could be (an unpinned command, say).
    pub warnings: Vec<Finding>,
}

impl Findings {
    /// Records an error on `field`.
    pub fn error(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(Finding {
            field: field.into(),
            message: message.into(),
        });
    }

    /// Records a warning on `field`.
    pub fn warn(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(Finding {
            field: field.into(),
            message: message.into(),
        });
    }

    /// Whether nothing refuses the input.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// Adds `other`'s findings with `prefix` before each field (`servers[3].`).
    pub fn extend_under(&mut self, prefix: &str, other: Findings) {
        let under = |f: Finding| Finding {
            field: format!("{prefix}{}", f.field),
            message: f.message,
        };
        self.errors.extend(other.errors.into_iter().map(under));
        self.warnings.extend(other.warnings.into_iter().map(under));
    }

    /// The first error on `field`, if any.
    pub fn error_on(&self, field: &str) -> Option<&str> {
        self.errors
            .iter()
            .find(|f| f.field == field)
            .map(|f| f.message.as_str())
    }
}
