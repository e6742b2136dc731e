//! Lists at the command line: a header row, then one tab-separated row per item; or, with
//! `--json`, one JSON array of objects keyed by the same column names (pretty-printed).
//!
//! Text rows are written as they come (`portcullis clients list | head` stops early); a JSON
//! array is written once it is complete. Nothing is written before the first row is known, so
//! a list that fails at once (an unknown realm) prints only its error, on stderr.
use super::support::{StdoutClosed, write_out};
use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde_json::Value;

/// How a list command prints its rows.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct ListFormat {
    /// Print one JSON array of objects, keyed by the header row's column names, instead of
    /// tab-separated rows.
    #[arg(long)]
    pub json: bool,
}

/// One cell of a row: its JSON value, and what a text row shows where that is not the value as
/// written.
#[derive(Debug)]
pub struct Cell {
    value: Value,
    text: Option<String>,
}

impl<T: Into<Value>> From<T> for Cell {
    fn from(value: T) -> Self {
        Self {
            value: value.into(),
            text: None,
        }
    }
}

impl Cell {
    /// A boolean that text rows show as a word (`enabled` / `disabled`), as they always have.
    pub fn flag(on: bool, yes: &str, no: &str) -> Self {
        Self {
            value: Value::Bool(on),
            text: Some(if on { yes } else { no }.to_owned()),
        }
    }

    /// A list of strings: a JSON array, joined by `separator` in text rows.
    pub fn list<S: AsRef<str>>(items: &[S], separator: &str) -> Self {
        Self {
            value: items.iter().map(|s| Value::from(s.as_ref())).collect(),
            text: Some(
                items
                    .iter()
                    .map(AsRef::as_ref)
                    .collect::<Vec<_>>()
                    .join(separator),
            ),
        }
    }

    /// A value whose text form is given (e.g. several numbers in words).
    pub fn shown_as(value: impl Into<Value>, text: String) -> Self {
        Self {
            value: value.into(),
            text: Some(text),
        }
    }

    /// The cell in a tab-separated row: strings raw, null as `-`, anything else as JSON.
    fn text(&self) -> String {
        match (&self.text, &self.value) {
            (Some(text), _) => text.clone(),
            (None, Value::String(s)) => s.clone(),
            (None, Value::Null) => "-".to_owned(),
            (None, other) => other.to_string(),
        }
    }
}

/// A list being printed: `N` columns, each row checked to have them all at compile time.
#[derive(Debug)]
pub struct Table<const N: usize> {
    columns: [&'static str; N],
    /// Rows kept for the JSON array; `None` when printing text.
    json: Option<Vec<[Value; N]>>,
    /// Whether the text header row is out. It goes with the first row (or at the end), so a
    /// list that fails before it has anything to show prints nothing but its error.
    header_written: bool,
}

impl<const N: usize> Table<N> {
    /// A list with these columns, printed as `format` says.
    pub fn new(format: ListFormat, columns: [&'static str; N]) -> Self {
        Self {
            columns,
            json: format.json.then(Vec::new),
            header_written: false,
        }
    }

    fn write_header(&mut self) -> Result<(), StdoutClosed> {
        if !self.header_written {
            self.header_written = true;
            write_out(format_args!("{}\n", self.columns.join("\t")))?;
        }
        Ok(())
    }

    /// Prints one row (as text) or keeps it for the JSON array.
    ///
    /// # Errors
    /// [`StdoutClosed`] when the row cannot be written.
    pub fn row(&mut self, cells: [Cell; N]) -> Result<(), StdoutClosed> {
        match &mut self.json {
            Some(rows) => {
                rows.push(cells.map(|c| c.value));
                Ok(())
            }
            None => {
                self.write_header()?;
                let line = cells.iter().map(Cell::text).collect::<Vec<_>>().join("\t");
                write_out(format_args!("{line}\n"))
            }
        }
    }

    /// Ends the list: as text, the header row if no row brought it (an empty list is its
    /// header alone); as JSON, the array (`[]` when there was no row).
    ///
    /// # Errors
    /// [`StdoutClosed`] when the output cannot be written.
    pub fn finish(mut self) -> Result<(), StdoutClosed> {
        let Some(rows) = &self.json else {
            return self.write_header();
        };
        let array = serde_json::to_string_pretty(&Rows {
            columns: &self.columns,
            rows,
        })
        .expect("JSON values with string keys always serialize");
        write_out(format_args!("{array}\n"))
    }
}

/// The JSON array: one object per row, its keys in column order.
struct Rows<'a, const N: usize> {
    columns: &'a [&'static str; N],
    rows: &'a [[Value; N]],
}

impl<const N: usize> serde::Serialize for Rows<'_, N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut array = serializer.serialize_seq(Some(self.rows.len()))?;
        for row in self.rows {
            array.serialize_element(&Row {
                columns: self.columns,
                values: row,
            })?;
        }
        array.end()
    }
}

/// One row as a JSON object, its keys in column order.
struct Row<'a, const N: usize> {
    columns: &'a [&'static str; N],
    values: &'a [Value; N],
}

impl<const N: usize> serde::Serialize for Row<'_, N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_map(Some(N))?;
        for (column, value) in self.columns.iter().zip(self.values) {
            object.serialize_entry(column, value)?;
        }
        object.end()
    }
}

#[cfg(test)]
mod tests {
    use super::Cell;
    use serde_json::{Value, json};

    #[test]
    fn text_cells_are_raw_strings_dashes_and_values_as_written() {
        assert_eq!(Cell::from("a b").text(), "a b");
        assert_eq!(Cell::from(Value::Null).text(), "-");
        assert_eq!(Cell::from(Option::<String>::None).text(), "-");
        assert_eq!(Cell::from(true).text(), "true");
        assert_eq!(Cell::from(300).text(), "300");
        let flag = Cell::flag(false, "enabled", "disabled");
        assert_eq!((flag.text(), flag.value), ("disabled".into(), json!(false)));
        let list = Cell::list(&["a", "b"], ",");
        assert_eq!((list.text(), list.value), ("a,b".into(), json!(["a", "b"])));
    }

    #[test]
    fn json_rows_keep_the_column_order() {
        let rows = [[json!("z"), json!(1)], [json!("y"), Value::Null]];
        let out = serde_json::to_string(&super::Rows {
            columns: &["name", "count"],
            rows: &rows,
        })
        .expect("serialize");
        assert_eq!(out, r#"[{"name":"z","count":1},{"name":"y","count":null}]"#);
        let empty = super::Rows::<2> {
            columns: &["name", "count"],
            rows: &[],
        };
        assert_eq!(serde_json::to_string_pretty(&empty).expect("ser"), "[]");
    }
}
