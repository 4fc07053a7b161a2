//! What a trace record is: the [`Record`] trait, the [`Value`]s its fields hold, the
//! `record!` macro that declares a table's record, and the macros that gather every
//! slice's record kinds and tables into the lists (made in [`records`](super::records)).

use super::kind::{Kind, Type};
use super::table::RowWriter;
use crate::engine::SimTime;

/// Declares a trace record: a struct whose fields, in order, are the columns of its table
/// (a field's name is its column's name, its type gives the column's kind through
/// [`Value`]), and its [`Record`] implementation.
///
/// ```text
/// crate::record! {
///     /// TCP congestion window at every change.
///     CwndRecord<'a> => "cwnd" {
///         time: SimTime,
///         flow: &'a str,
///         ssthresh: Option<u64>,
///     }
/// }
/// ```
#[doc(hidden)]
#[macro_export]
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

        impl $(<$lt>)? $crate::trace::Record for $name $(<$lt>)? {
            const NAME: &'static str = $table_name;
            const COLUMNS: &'static [(&'static str, $crate::trace::Kind)] =
                &[ $( (stringify!($field), <$ty as $crate::trace::Value>::KIND) ),+ ];

            #[inline]
            fn write(&self, row: &mut $crate::trace::RowWriter<'_>) {
                $( $crate::trace::Value::put(&self.$field, row); )+
            }
        }
    };
}

/// Gathers the record kinds and tables of every slice, one slice after another: the state
/// is `{ [kinds so far] [tables so far] [slices left] }`, each slice's `records!` macro
/// being called with it and calling back with its own `kinds { … } tables { … }`; when no
/// slice is left, [`trace_tables!`](crate::trace_tables) makes the lists (see
/// [`records`](super::records)).
#[doc(hidden)]
#[macro_export]
macro_rules! gather_records {
    (
        { [ $($k:tt)* ] [ $($t:tt)* ] [] }
        kinds { $($nk:tt)* } tables { $($nt:tt)* }
    ) => {
        $crate::trace_tables! { kinds { $($k)* $($nk)* } tables { $($t)* $($nt)* } }
    };
    (
        { [ $($k:tt)* ] [ $($t:tt)* ] [ $($m:ident)::+ , $($rest:tt)* ] }
        kinds { $($nk:tt)* } tables { $($nt:tt)* }
    ) => {
        $crate::$($m)::+::records! {
            gather_records { [ $($k)* $($nk)* ] [ $($t)* $($nt)* ] [ $($rest)* ] }
        }
    };
}

/// From the transports' list: the slices whose records are gathered, the transports'
/// between the trace's own and the link technologies'.
#[doc(hidden)]
#[macro_export]
macro_rules! record_transports {
    ( {} $( $(#[$doc:meta])* $kind:ident => $slice:ident, )* ) => {
        $crate::with_links! { record_links { $( transport::$slice, )* } }
    };
}

/// From the link technologies' list: every slice whose records are gathered, in the order
/// of the tables: the trace's own, the transports', the link technologies', 802.11's and
/// the mechanisms'.
#[doc(hidden)]
#[macro_export]
macro_rules! record_links {
    (
        { $($transports:tt)* }
        $( $(#[doc = $vd:literal])* $v:ident($key:ident) in $($m:ident)::+ , )*
    ) => {
        $crate::gather_records! {
            { [] [] [ trace, $($transports)* $( $($m)::+ , )* wifi, mech, ] }
            kinds {} tables {}
        }
    };
}

/// Makes the lists from every slice's kinds and tables: [`RecordKind`](super::RecordKind)
/// (a variant per kind, its name in `record = [...]` the given string),
/// [`TableId`](super::TableId) (a variant per table, in the order gathered), the
/// [`Tabled`](super::Tabled) implementation of every record, and
/// [`SCHEMAS`](super::SCHEMAS).
#[doc(hidden)]
#[macro_export]
macro_rules! trace_tables {
    (
        kinds { $( $(#[$kdoc:meta])* $kind:ident = $name:literal, )* }
        tables { $( $rec:ident in $($p:ident)::+ => $rkind:ident, )* }
    ) => {
        /// Trace tables a run can record.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord,
            serde::Deserialize, serde::Serialize, schemars::JsonSchema,
        )]
        pub enum RecordKind {
            $( $(#[$kdoc])* #[serde(rename = $name)] $kind, )*
        }

        impl RecordKind {
            /// Every kind, in the order gathered.
            pub const ALL: &'static [RecordKind] = &[ $( RecordKind::$kind, )* ];
        }

        /// The recorded tables, in the order a run lists them (one per record).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum TableId {
            $( $rec, )*
        }

        impl TableId {
            /// How many tables there are.
            pub const COUNT: usize = [$( TableId::$rec ),*].len();
        }

        /// A record with its table: where [`Traces`](crate::trace::Traces) keeps it.
        pub trait Tabled: $crate::trace::Record {
            /// The table it goes to.
            const TABLE: TableId;
        }

        $(
            impl<'a> Tabled for $crate::$($p)::+::$rec<'a> {
                const TABLE: TableId = TableId::$rec;
            }
        )*

        /// Every table's schema, in [`TableId`] order.
        pub const SCHEMAS: [Schema; TableId::COUNT] = [
            $( Schema::of::<$crate::$($p)::+::$rec>(RecordKind::$rkind), )*
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
