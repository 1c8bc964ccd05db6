//! Enums whose values have names on the wire (JSON, SQL columns, CLI flags, TypeScript):
//! each name is written once, in the declaration, and everything else comes from it.

/// Declares an enum with one wire name per variant and derives from that list: serde renames,
/// `ALL`, `NAMES`, `as_str`, `parse` (exact), `Display` and `FromStr` (whose error lists the
/// accepted names, so `clap` can use it as a value parser). Extra derives and attributes
/// (`Default`, `#[default]`, ts-rs) pass through.
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $wire)] $variant ),+
        }

        impl $name {
            pub const ALL: [$name; [$($wire),+].len()] = [$(Self::$variant),+];
            pub const NAMES: [&'static str; [$($wire),+].len()] = [$($wire),+];
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire),+
                }
            }
            /// The value with exactly this name.
            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $($wire => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::parse(s).ok_or_else(|| {
                    format!("unknown value {s:?}; expected one of: {}", Self::NAMES.join(", "))
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::named_enum! {
        #[derive(Default)]
        enum Sample {
            #[default]
            One = "one",
            TwoWords = "two-words",
        }
    }

    #[test]
    fn one_list_gives_every_form() {
        assert_eq!(Sample::ALL, [Sample::One, Sample::TwoWords]);
        assert_eq!(Sample::NAMES, ["one", "two-words"]);
        assert_eq!(Sample::TwoWords.to_string(), "two-words");
        assert_eq!("two-words".parse::<Sample>(), Ok(Sample::TwoWords));
        let err = "three".parse::<Sample>().unwrap_err();
        assert!(err.contains("one, two-words"), "{err}");
        assert_eq!(
            serde_json::to_string(&Sample::TwoWords).unwrap(),
            "\"two-words\""
        );
        assert_eq!(
            serde_json::from_str::<Sample>("\"one\"").unwrap(),
            Sample::One
        );
        assert_eq!(Sample::default(), Sample::One);
    }
}
