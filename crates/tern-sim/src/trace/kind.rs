//! Column types: what a value is stored as, and whether it may be null.

/// The physical type of a column's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// 64-bit float (times in seconds, rates, dB).
    F64,
    /// Unsigned 64-bit integer (counts, sizes, ids, flags as 0/1).
    U64,
    /// A string (names and labels), stored with a dictionary.
    Text,
}

/// The kind of a column: its type and whether it may be null.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub ty: Type,
    pub nullable: bool,
}

impl Kind {
    /// A column of `ty` that always holds a value.
    pub const fn of(ty: Type) -> Kind {
        Kind {
            ty,
            nullable: false,
        }
    }

    /// The same type, nullable.
    pub const fn nullable(self) -> Kind {
        Kind {
            ty: self.ty,
            nullable: true,
        }
    }

    /// Bytes a row of this kind takes in memory (value, and a validity flag if nullable).
    pub const fn width(self) -> usize {
        let value = match self.ty {
            Type::F64 | Type::U64 => 8,
            Type::Text => 4,
        };
        value + self.nullable as usize
    }
}
