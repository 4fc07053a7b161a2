//! Columnar tables of trace records: what the run holds in memory between row groups, and
//! what it hands over when it has no output folder.

use super::kind::{Kind, Type};

/// The values of one column. Rows where the column is null (see [`Column::valid`]) hold a
/// filler (0, 0.0 or code 0) that means nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    F64(Vec<f64>),
    U64(Vec<u64>),
    /// Strings stored as codes into a dictionary of distinct labels.
    Text {
        codes: Vec<u32>,
        labels: Vec<String>,
    },
}

impl ColumnData {
    /// Rows held.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::F64(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::Text { codes, .. } => codes.len(),
        }
    }

    /// Whether the column holds no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One column of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: &'static str,
    pub data: ColumnData,
    /// For a nullable column, whether each row holds a value (`false`: null); `None` for a
    /// column that is never null.
    pub valid: Option<Vec<bool>>,
}

impl Column {
    fn new(name: &'static str, kind: Kind) -> Self {
        let data = match kind.ty {
            Type::F64 => ColumnData::F64(Vec::new()),
            Type::U64 => ColumnData::U64(Vec::new()),
            Type::Text => ColumnData::Text {
                codes: Vec::new(),
                labels: Vec::new(),
            },
        };
        Column {
            name,
            data,
            valid: kind.nullable.then(Vec::new),
        }
    }

    /// The kind the column was declared with.
    pub fn kind(&self) -> Kind {
        let ty = match self.data {
            ColumnData::F64(_) => Type::F64,
            ColumnData::U64(_) => Type::U64,
            ColumnData::Text { .. } => Type::Text,
        };
        Kind {
            ty,
            nullable: self.valid.is_some(),
        }
    }

    /// Whether row `i` holds a value.
    pub fn is_valid(&self, i: usize) -> bool {
        self.valid.as_ref().is_none_or(|v| v[i])
    }

    /// Forgets the rows (keeping the allocations and the text dictionary).
    pub(super) fn clear(&mut self) {
        match &mut self.data {
            ColumnData::F64(v) => v.clear(),
            ColumnData::U64(v) => v.clear(),
            ColumnData::Text { codes, .. } => codes.clear(),
        }
        if let Some(v) = &mut self.valid {
            v.clear();
        }
    }

    /// Heap bytes the column holds, counted from capacities.
    fn bytes(&self) -> usize {
        let data = match &self.data {
            ColumnData::F64(v) => v.capacity() * 8,
            ColumnData::U64(v) => v.capacity() * 8,
            ColumnData::Text { codes, labels } => {
                codes.capacity() * 4 + labels.iter().map(String::capacity).sum::<usize>()
            }
        };
        data + self.valid.as_ref().map_or(0, Vec::capacity)
    }
}

/// A table: equally long columns, declared by a record kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<Column>,
}

impl Table {
    /// An empty table with the given columns.
    pub fn new(name: &'static str, columns: &[(&'static str, Kind)]) -> Self {
        let columns = columns
            .iter()
            .map(|&(name, kind)| Column::new(name, kind))
            .collect();
        Table { name, columns }
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Heap bytes the table holds (values, validity, dictionaries), from capacities.
    pub fn bytes(&self) -> usize {
        self.columns.iter().map(Column::bytes).sum()
    }

    /// Forgets the rows, keeping allocations and dictionaries for the next ones.
    pub(super) fn clear(&mut self) {
        self.columns.iter_mut().for_each(Column::clear);
    }
}

/// Appends one record's values to a table, column after column: what
/// [`Record::write`](super::Record::write) is given.
pub struct RowWriter<'a> {
    columns: &'a mut [Column],
    next: usize,
}

impl<'a> RowWriter<'a> {
    pub(super) fn new(table: &'a mut Table) -> Self {
        RowWriter {
            columns: &mut table.columns,
            next: 0,
        }
    }

    /// The next column, marked valid when it is nullable.
    #[inline]
    fn column(&mut self, valid: bool) -> &mut ColumnData {
        let col = &mut self.columns[self.next];
        self.next += 1;
        if let Some(v) = &mut col.valid {
            v.push(valid);
        }
        &mut col.data
    }

    /// Writes a float into the next column.
    #[inline]
    pub fn f64(&mut self, x: f64) {
        match self.column(true) {
            ColumnData::F64(v) => v.push(x),
            other => kind_mismatch(other, Type::F64),
        }
    }

    /// Writes an unsigned integer into the next column.
    #[inline]
    pub fn u64(&mut self, x: u64) {
        match self.column(true) {
            ColumnData::U64(v) => v.push(x),
            other => kind_mismatch(other, Type::U64),
        }
    }

    /// Writes a string into the next column.
    #[inline]
    pub fn text(&mut self, s: &str) {
        match self.column(true) {
            ColumnData::Text { codes, labels } => {
                // Few distinct labels (flow and link names): a linear scan is enough.
                let code = match labels.iter().position(|l| l == s) {
                    Some(i) => i,
                    None => {
                        labels.push(s.to_owned());
                        labels.len() - 1
                    }
                };
                codes.push(code as u32);
            }
            other => kind_mismatch(other, Type::Text),
        }
    }

    /// Writes a null into the next column (declared nullable, as `Option<T>` fields are).
    #[inline]
    pub fn null(&mut self) {
        match self.column(false) {
            ColumnData::F64(v) => v.push(0.0),
            ColumnData::U64(v) => v.push(0),
            ColumnData::Text { codes, .. } => codes.push(0),
        }
    }
}

/// A record wrote a value of another kind than its declared column. Tables are built from
/// the same field list as `write` (the `record!` macro), so this cannot happen; the schema
/// test of every record kind checks it.
#[cold]
fn kind_mismatch(data: &ColumnData, ty: Type) -> ! {
    unreachable!(
        "a {ty:?} value written into a column of {} rows of another kind",
        data.len()
    )
}
