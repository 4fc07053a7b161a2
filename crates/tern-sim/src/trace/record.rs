//! What a trace record is: the [`Record`] trait, the [`Value`]s its fields hold, the
//! `record!` macro that declares a kind, and the `tables!` macro that lists every table
//! once (in `records`).

use super::kind::{Kind, Type};
use super::table::RowWriter;
use crate::engine::SimTime;
use crate::scenario::RecordKind;

/// Declares a trace record: a struct whose fields, in order, are the columns of its table
/// (a field's name is its column's name, its type gives the column's kind through
/// [`Value`]), and its [`Record`] implementation.
///
/// ```text
/// record! {
///     /// TCP congestion window at every change.
///     CwndRecord<'a> => "cwnd" {
///         time: SimTime,
///         flow: &'a str,
///         ssthresh: Option<u64>,
///     }
/// }
/// ```
macro_rules! record {
    (
        $(#[$meta:meta])*
        $name:ident $(<$lt:lifetime>)? => $table_name:literal {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name $(<$lt>)? {
            $( $(#[$fmeta])* pub $field: $ty, )+
        }

        impl $(<$lt>)? $crate::trace::record::Record for $name $(<$lt>)? {
            const NAME: &'static str = $table_name;
            const COLUMNS: &'static [(&'static str, $crate::trace::kind::Kind)] =
                &[ $( (stringify!($field), <$ty as $crate::trace::record::Value>::KIND) ),+ ];

            #[inline]
            fn write(&self, row: &mut $crate::trace::table::RowWriter<'_>) {
                $( $crate::trace::record::Value::put(&self.$field, row); )+
            }
        }
    };
}

/// Lists every table once, in the order a run lists them, each as its record and the
/// [`RecordKind`] that turns it on; generates [`TableId`](super::records::TableId), the
/// [`Tabled`](super::records::Tabled) implementation of every record, and
/// [`SCHEMAS`](super::records::SCHEMAS). A new trace is a `record!` and one line here.
macro_rules! tables {
    ( $( $name:ident $(<$lt:lifetime>)? => $kind:ident ),+ $(,)? ) => {
        /// The recorded tables, in the order a run lists them (one per record).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum TableId {
            $( $name, )+
        }

        impl TableId {
            /// How many tables there are.
            pub const COUNT: usize = [$( TableId::$name ),+].len();
        }

        /// A record with its table: where [`Traces`](crate::trace::Traces) keeps it.
        pub trait Tabled: $crate::trace::record::Record {
            /// The table it goes to.
            const TABLE: TableId;
        }

        $(
            impl $(<$lt>)? Tabled for $name $(<$lt>)? {
                const TABLE: TableId = TableId::$name;
            }
        )+

        /// Every table's schema, in [`TableId`] order.
        pub const SCHEMAS: [$crate::trace::record::Schema; TableId::COUNT] = [
            $( $crate::trace::record::Schema::of::<$name>($crate::scenario::RecordKind::$kind), )+
        ];
    };
}

/// A value a record field can hold, and how it is written into its column.
pub trait Value {
    /// The column kind this field type gives.
    const KIND: Kind;
    /// Writes the value into the row's next column.
    fn put(&self, row: &mut RowWriter<'_>);
}

impl Value for f64 {
    const KIND: Kind = Kind::of(Type::F64);
    #[inline]
    fn put(&self, row: &mut RowWriter<'_>) {
        row.f64(*self);
    }
}

/// Times are written in seconds.
impl Value for SimTime {
    const KIND: Kind = Kind::of(Type::F64);
    #[inline]
    fn put(&self, row: &mut RowWriter<'_>) {
        row.f64(self.as_secs_f64());
    }
}

impl Value for u64 {
    const KIND: Kind = Kind::of(Type::U64);
    #[inline]
    fn put(&self, row: &mut RowWriter<'_>) {
        row.u64(*self);
    }
}

impl Value for u32 {
    const KIND: Kind = Kind::of(Type::U64);
    #[inline]
    fn put(&self, row: &mut RowWriter<'_>) {
        row.u64(u64::from(*self));
    }
}

/// Flags are written as 0 or 1.
impl Value for bool {
    const KIND: Kind = Kind::of(Type::U64);
    #[inline]
    fn put(&self, row: &mut RowWriter<'_>) {
        row.u64(u64::from(*self));
    }
}

impl Value for &str {
    const KIND: Kind = Kind::of(Type::Text);
    #[inline]
    fn put(&self, row: &mut RowWriter<'_>) {
        row.text(self);
    }
}

/// An unset value: a nullable column, null where `None`.
impl<T: Value> Value for Option<T> {
    const KIND: Kind = T::KIND.nullable();
    #[inline]
    fn put(&self, row: &mut RowWriter<'_>) {
        match self {
            Some(v) => v.put(row),
            None => row.null(),
        }
    }
}

/// One kind of trace record: a row of table [`Record::NAME`].
pub trait Record {
    /// The table's name (and the Parquet file's stem).
    const NAME: &'static str;
    /// Column names and kinds, in order: one per field.
    const COLUMNS: &'static [(&'static str, Kind)];
    /// Writes the fields, in the order of [`Record::COLUMNS`].
    fn write(&self, row: &mut RowWriter<'_>);
}

/// The name and columns of a table, as its record declares them, and the kind in a
/// scenario's `record = [...]` that turns it on.
#[derive(Clone, Copy, Debug)]
pub struct Schema {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Kind)],
    pub kind: RecordKind,
}

impl Schema {
    /// The schema of record `R`, recorded when the scenario asks for `kind`.
    pub const fn of<R: Record>(kind: RecordKind) -> Schema {
        Schema {
            name: R::NAME,
            columns: R::COLUMNS,
            kind,
        }
    }

    /// Bytes a row takes in memory.
    pub const fn row_bytes(&self) -> usize {
        let mut sum = 0;
        let mut i = 0;
        while i < self.columns.len() {
            sum += self.columns[i].1.width();
            i += 1;
        }
        sum
    }
}
