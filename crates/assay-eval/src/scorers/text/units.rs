//! Units of measure written after a number, with their dimension and their size in the
//! dimension's base unit, so that "0.5 km" answers "500 m" and "5 miles" does not answer "5 km".
//!
//! Spellings are those of a prepared text ([`super::prepare`]: NFKC, so "㎞" is "km" and "℃" is
//! "°c"; ASCII lower case; katakana folded to hiragana, so "キロメートル" is "きろめーとる").
//! A unit that names a quantity only with context ("degrees" without a scale, "キロ" between
//! kilometres and kilograms) is read as no unit, so the number alone decides as before.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    Length,
    Mass,
    Volume,
    Time,
    Temperature,
    Speed,
    Area,
    /// Money: never converted (rates change), so only the same currency answers.
    Currency,
    /// A share of a whole: "%" (fractions in words are read by [`super::proportion`]).
    Proportion,
    Pressure,
    Frequency,
    Voltage,
    Energy,
    Current,
    Force,
    Power,
    Resistance,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// The unit's canonical symbol, for evidence ("km").
    pub symbol: &'static str,
    pub dimension: Dimension,
    /// Its size in the dimension's base unit (metre, gram, litre, second, m/s, m², 1).
    pub factor: f64,
    /// Added after scaling (temperatures to kelvin).
    pub offset: f64,
}

impl Unit {
    /// The quantity `value` of this unit in the dimension's base unit.
    pub fn base(&self, value: f64) -> f64 {
        value * self.factor + self.offset
    }
}

const fn u(symbol: &'static str, dimension: Dimension, factor: f64) -> Unit {
    Unit {
        symbol,
        dimension,
        factor,
        offset: 0.0,
    }
}

use Dimension::*;

const MM: Unit = u("mm", Length, 0.001);
const CM: Unit = u("cm", Length, 0.01);
const M: Unit = u("m", Length, 1.0);
const KM: Unit = u("km", Length, 1000.0);
const INCH: Unit = u("in", Length, 0.0254);
const FT: Unit = u("ft", Length, 0.3048);
const YD: Unit = u("yd", Length, 0.9144);
const MI: Unit = u("mi", Length, 1609.344);
const MG: Unit = u("mg", Mass, 0.001);
const G: Unit = u("g", Mass, 1.0);
const KG: Unit = u("kg", Mass, 1000.0);
const T: Unit = u("t", Mass, 1_000_000.0);
const LB: Unit = u("lb", Mass, 453.592_37);
const OZ: Unit = u("oz", Mass, 28.349_523_125);
const ML: Unit = u("ml", Volume, 0.001);
const L: Unit = u("l", Volume, 1.0);
const GAL: Unit = u("gal", Volume, 3.785_411_784);
const MS: Unit = u("ms", Time, 0.001);
const SEC: Unit = u("s", Time, 1.0);
const MIN: Unit = u("min", Time, 60.0);
const HOUR: Unit = u("h", Time, 3600.0);
const DAY: Unit = u("d", Time, 86_400.0);
const WEEK: Unit = u("week", Time, 604_800.0);
const CELSIUS: Unit = Unit {
    symbol: "°C",
    dimension: Temperature,
    factor: 1.0,
    offset: 273.15,
};
const FAHRENHEIT: Unit = Unit {
    symbol: "°F",
    dimension: Temperature,
    factor: 5.0 / 9.0,
    offset: 273.15 - 32.0 * 5.0 / 9.0,
};
const KMH: Unit = u("km/h", Speed, 1000.0 / 3600.0);
const MPH: Unit = u("mph", Speed, 1609.344 / 3600.0);
const MPS: Unit = u("m/s", Speed, 1.0);
const M2: Unit = u("m²", Area, 1.0);
const KM2: Unit = u("km²", Area, 1_000_000.0);
const CM2: Unit = u("cm²", Area, 0.0001);
const FT2: Unit = u("ft²", Area, 0.092_903_04);
const ACRE: Unit = u("acre", Area, 4_046.856_422_4);
const HECTARE: Unit = u("ha", Area, 10_000.0);
const USD: Unit = u("USD", Currency, 1.0);
const JPY: Unit = u("JPY", Currency, 1.0);
const KRW: Unit = u("KRW", Currency, 1.0);
const EUR: Unit = u("EUR", Currency, 1.0);
const PERCENT: Unit = u("%", Proportion, 0.01);
const GBP: Unit = u("GBP", Currency, 1.0);
const MONTH: Unit = u("month", Time, 2_629_800.0);
const YEAR: Unit = u("year", Time, 31_557_600.0);
// A tsubo (坪) or pyeong (평), the floor area Japanese and Korean listings give: 400/121 m².
const TSUBO: Unit = u("tsubo", Area, 400.0 / 121.0);
const M3: Unit = u("m³", Volume, 1000.0);
const CM3: Unit = u("cm³", Volume, 0.001);
const PA: Unit = u("Pa", Pressure, 1.0);
const HPA: Unit = u("hPa", Pressure, 100.0);
const KPA: Unit = u("kPa", Pressure, 1000.0);
const MPA: Unit = u("MPa", Pressure, 1_000_000.0);
const BAR: Unit = u("bar", Pressure, 100_000.0);
const MBAR: Unit = u("mbar", Pressure, 100.0);
const ATM: Unit = u("atm", Pressure, 101_325.0);
const PSI: Unit = u("psi", Pressure, 6_894.757_293_168);
const MMHG: Unit = u("mmHg", Pressure, 133.322_387_415);
const HZ: Unit = u("Hz", Frequency, 1.0);
const KHZ: Unit = u("kHz", Frequency, 1e3);
const MHZ: Unit = u("MHz", Frequency, 1e6);
const GHZ: Unit = u("GHz", Frequency, 1e9);
const VOLT: Unit = u("V", Voltage, 1.0);
const AMP: Unit = u("A", Current, 1.0);
const MA: Unit = u("mA", Current, 0.001);
const MV: Unit = u("mV", Voltage, 0.001);
const KV: Unit = u("kV", Voltage, 1000.0);
const JOULE: Unit = u("J", Energy, 1.0);
const KJ: Unit = u("kJ", Energy, 1000.0);
const CAL: Unit = u("cal", Energy, 4.184);
const KCAL: Unit = u("kcal", Energy, 4184.0);
const WH: Unit = u("Wh", Energy, 3600.0);
const KWH: Unit = u("kWh", Energy, 3_600_000.0);
const NEWTON: Unit = u("N", Force, 1.0);
const KN: Unit = u("kN", Force, 1000.0);
const WATT: Unit = u("W", Power, 1.0);
const KW: Unit = u("kW", Power, 1000.0);
const OHM: Unit = u("Ω", Resistance, 1.0);
const KOHM: Unit = u("kΩ", Resistance, 1000.0);

/// Spellings, longest first where one is the start of another. ASCII spellings must end a word;
/// Japanese and Korean ones may be followed by a particle or a copula ("2킬로미터입니다").
const SPELLINGS: &[(&str, Unit)] = &[
    ("kilometers per hour", KMH),
    ("kilometres per hour", KMH),
    ("km per hour", KMH),
    ("km/h", KMH),
    ("kmh", KMH),
    ("kph", KMH),
    ("miles per hour", MPH),
    ("mph", MPH),
    ("meters per second", MPS),
    ("metres per second", MPS),
    ("m/s", MPS),
    ("square kilometers", KM2),
    ("square kilometres", KM2),
    ("square meters", M2),
    ("square metres", M2),
    ("square centimeters", CM2),
    ("square centimetres", CM2),
    ("square feet", FT2),
    ("square foot", FT2),
    ("sq ft", FT2),
    ("sq m", M2),
    ("cubic meters", M3),
    ("cubic metres", M3),
    ("cubic meter", M3),
    ("cubic metre", M3),
    ("cubic centimeters", CM3),
    ("cubic centimetres", CM3),
    ("m3", M3),
    ("cm3", CM3),
    ("milliseconds", MS),
    ("millisecond", MS),
    ("msec", MS),
    ("ms", MS),
    ("hectopascals", HPA),
    ("hectopascal", HPA),
    ("kilopascals", KPA),
    ("kilopascal", KPA),
    ("megapascals", MPA),
    ("megapascal", MPA),
    ("pascals", PA),
    ("pascal", PA),
    ("hpa", HPA),
    ("kpa", KPA),
    ("mpa", MPA),
    ("pa", PA),
    ("mbar", MBAR),
    ("millibars", MBAR),
    ("millibar", MBAR),
    ("bar", BAR),
    ("atmospheres", ATM),
    ("atmosphere", ATM),
    ("atm", ATM),
    ("psi", PSI),
    ("mmhg", MMHG),
    ("kilohertz", KHZ),
    ("megahertz", MHZ),
    ("gigahertz", GHZ),
    ("hertz", HZ),
    ("khz", KHZ),
    ("mhz", MHZ),
    ("ghz", GHZ),
    ("hz", HZ),
    ("millivolts", MV),
    ("millivolt", MV),
    ("kilovolts", KV),
    ("kilovolt", KV),
    ("milliamperes", MA),
    ("milliamps", MA),
    ("amperes", AMP),
    ("ampere", AMP),
    ("amps", AMP),
    ("ma", MA),
    ("a", AMP),
    ("volts", VOLT),
    ("volt", VOLT),
    ("mv", MV),
    ("kv", KV),
    ("v", VOLT),
    // Physics items: force, power, resistance, and the joule's symbol.
    // A newton in its base units, as a derivation ends ("F = ma = 8 kg·m/s²").
    ("kg·m/s2", NEWTON),
    ("kg⋅m/s2", NEWTON),
    ("kg*m/s2", NEWTON),
    ("kg m/s2", NEWTON),
    ("kg·m/s^2", NEWTON),
    ("kg m/s^2", NEWTON),
    ("kilonewtons", KN),
    ("kilonewton", KN),
    ("newtons", NEWTON),
    ("newton", NEWTON),
    ("kn", KN),
    ("n", NEWTON),
    ("ニュートン", NEWTON),
    ("뉴턴", NEWTON),
    ("kilowatts", KW),
    ("kilowatt", KW),
    ("watts", WATT),
    ("watt", WATT),
    ("kw", KW),
    ("w", WATT),
    ("ワット", WATT),
    ("와트", WATT),
    ("ohms", OHM),
    ("ohm", OHM),
    ("kΩ", KOHM),
    ("Ω", OHM),
    ("オーム", OHM),
    ("j", JOULE),
    ("ジュール", JOULE),
    ("kilojoules", KJ),
    ("kilojoule", KJ),
    ("joules", JOULE),
    ("joule", JOULE),
    ("kj", KJ),
    ("kcal", KCAL),
    ("kilocalories", KCAL),
    // Food labels' "calories" are kilocalories.
    ("calories", KCAL),
    ("calorie", KCAL),
    ("cal", CAL),
    ("kwh", KWH),
    ("wh", WH),
    ("km2", KM2),
    ("cm2", CM2),
    ("m2", M2),
    ("acres", ACRE),
    ("acre", ACRE),
    ("hectares", HECTARE),
    ("hectare", HECTARE),
    ("ha", HECTARE),
    ("degrees celsius", CELSIUS),
    ("degree celsius", CELSIUS),
    ("degrees centigrade", CELSIUS),
    ("degrees fahrenheit", FAHRENHEIT),
    ("degree fahrenheit", FAHRENHEIT),
    ("degrees c", CELSIUS),
    ("degrees f", FAHRENHEIT),
    ("celsius", CELSIUS),
    ("fahrenheit", FAHRENHEIT),
    ("°c", CELSIUS),
    ("°f", FAHRENHEIT),
    ("millimeters", MM),
    ("millimetres", MM),
    ("millimeter", MM),
    ("millimetre", MM),
    ("centimeters", CM),
    ("centimetres", CM),
    ("centimeter", CM),
    ("centimetre", CM),
    ("kilometers", KM),
    ("kilometres", KM),
    ("kilometer", KM),
    ("kilometre", KM),
    ("meters", M),
    ("metres", M),
    ("meter", M),
    ("metre", M),
    ("inches", INCH),
    ("inch", INCH),
    ("feet", FT),
    ("foot", FT),
    ("ft", FT),
    ("yards", YD),
    ("yard", YD),
    ("yd", YD),
    ("miles", MI),
    ("mile", MI),
    ("mi", MI),
    ("mm", MM),
    ("cm", CM),
    ("km", KM),
    ("m", M),
    ("milligrams", MG),
    ("milligram", MG),
    ("kilograms", KG),
    ("kilogram", KG),
    ("kilos", KG),
    ("kilo", KG),
    ("grams", G),
    ("gram", G),
    ("tonnes", T),
    ("tonne", T),
    ("tons", T),
    ("ton", T),
    ("pounds", LB),
    ("pound", LB),
    ("lbs", LB),
    ("lb", LB),
    ("ounces", OZ),
    ("ounce", OZ),
    ("oz", OZ),
    ("mg", MG),
    ("kg", KG),
    ("g", G),
    ("milliliters", ML),
    ("millilitres", ML),
    ("milliliter", ML),
    ("millilitre", ML),
    ("ml", ML),
    ("cc", ML),
    ("liters", L),
    ("litres", L),
    ("liter", L),
    ("litre", L),
    ("l", L),
    ("gallons", GAL),
    ("gallon", GAL),
    ("seconds", SEC),
    ("second", SEC),
    ("secs", SEC),
    ("sec", SEC),
    ("s", SEC),
    ("minutes", MIN),
    ("minute", MIN),
    ("mins", MIN),
    ("min", MIN),
    ("hours", HOUR),
    ("hour", HOUR),
    ("hrs", HOUR),
    ("hr", HOUR),
    ("h", HOUR),
    ("days", DAY),
    ("day", DAY),
    ("weeks", WEEK),
    ("week", WEEK),
    ("pounds sterling", GBP),
    ("gbp", GBP),
    ("どる", USD),
    ("ゆーろ", EUR),
    ("years", YEAR),
    ("year", YEAR),
    ("yrs", YEAR),
    ("months", MONTH),
    ("month", MONTH),
    ("ヶ月", MONTH),
    ("か月", MONTH),
    ("ヵ月", MONTH),
    ("개월", MONTH),
    ("坪", TSUBO),
    ("평", TSUBO),
    ("dollars", USD),
    ("dollar", USD),
    ("usd", USD),
    ("yen", JPY),
    ("jpy", JPY),
    ("won", KRW),
    ("krw", KRW),
    ("euros", EUR),
    ("euro", EUR),
    ("eur", EUR),
    ("%", PERCENT),
    ("percent", PERCENT),
    ("per cent", PERCENT),
    // Japanese (katakana folded to hiragana).
    ("きろめーとる", KM),
    ("せんちめーとる", CM),
    ("みりめーとる", MM),
    ("めーとる", M),
    ("せんち", CM),
    ("きろぐらむ", KG),
    ("みりぐらむ", MG),
    ("ぐらむ", G),
    ("とん", T),
    ("みりりっとる", ML),
    ("りっとる", L),
    ("まいる", MI),
    ("ふぃーと", FT),
    ("いんち", INCH),
    ("平方めーとる", M2),
    ("立方めーとる", M3),
    ("みり秒", MS),
    ("へくとぱすかる", HPA),
    ("きろぱすかる", KPA),
    ("めがぱすかる", MPA),
    ("ぱすかる", PA),
    ("ばーる", BAR),
    ("気圧", ATM),
    ("きろへるつ", KHZ),
    ("めがへるつ", MHZ),
    ("へるつ", HZ),
    ("ぼると", VOLT),
    ("きろかろりー", KCAL),
    ("平方きろめーとる", KM2),
    ("時間", HOUR),
    ("秒", SEC),
    ("分間", MIN),
    ("日間", DAY),
    ("週間", WEEK),
    ("円", JPY),
    ("ぱーせんと", PERCENT),
    // Korean.
    ("킬로미터", KM),
    ("센티미터", CM),
    ("밀리미터", MM),
    ("미터", M),
    ("센티", CM),
    ("킬로그램", KG),
    ("밀리그램", MG),
    ("그램", G),
    ("톤", T),
    ("밀리리터", ML),
    ("리터", L),
    ("마일", MI),
    ("피트", FT),
    ("인치", INCH),
    ("제곱미터", M2),
    ("세제곱미터", M3),
    ("입방미터", M3),
    ("밀리초", MS),
    ("헥토파스칼", HPA),
    ("킬로파스칼", KPA),
    ("메가파스칼", MPA),
    ("파스칼", PA),
    ("기압", ATM),
    ("킬로헤르츠", KHZ),
    ("메가헤르츠", MHZ),
    ("헤르츠", HZ),
    ("볼트", VOLT),
    ("킬로칼로리", KCAL),
    ("제곱킬로미터", KM2),
    ("시간", HOUR),
    ("초", SEC),
    ("분", MIN),
    ("주일", WEEK),
    ("원", KRW),
    ("엔", JPY),
    ("달러", USD),
    ("유로", EUR),
    ("퍼센트", PERCENT),
    ("프로", PERCENT),
];

/// A currency written before a figure ("$4.50", "£4.50", "€3", "¥500", "₩5,000"), the text
/// before the number ending with its sign.
pub fn unit_before(before: &str) -> Option<Unit> {
    let before = before.trim_end();
    // "華氏68度", "섭씨 20도": the scale named before the figure.
    for (scale, unit) in [
        ("華氏", FAHRENHEIT),
        ("摂氏", CELSIUS),
        ("화씨", FAHRENHEIT),
        ("섭씨", CELSIUS),
    ] {
        if before.ends_with(scale) {
            return Some(unit);
        }
    }
    match before.chars().next_back()? {
        '$' => Some(USD),
        '£' => Some(GBP),
        '€' => Some(EUR),
        '¥' | '￥' => Some(JPY),
        '₩' => Some(KRW),
        _ => None,
    }
}

/// The unit written at the start of `rest` (the text right after a number, spaces allowed
/// before it), and the byte length it takes up.
pub fn unit_at(rest: &str) -> Option<(Unit, usize)> {
    let trimmed = rest.trim_start();
    let skipped = rest.len() - trimmed.len();
    // Japanese "分" is a unit of time, but "3分の1" is a third.
    if trimmed.starts_with("分の") || trimmed.starts_with("분의") {
        return None;
    }
    let mut best: Option<(Unit, usize)> = None;
    for (spelling, unit) in SPELLINGS {
        let Some(after) = trimmed.strip_prefix(spelling) else {
            continue;
        };
        let ascii = spelling.is_ascii();
        let ends_word = !ascii
            || after
                .chars()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric());
        // Korean "분" / "초" / "원" / "톤" are also syllables of longer words.
        let korean_word = !ascii
            && spelling.chars().count() == 1
            && spelling.chars().all(super::is_hangul)
            && after.chars().next().is_some_and(|c| {
                super::is_hangul(c)
                    && !matches!(
                        c,
                        '이' | '입'
                            | '은'
                            | '는'
                            | '을'
                            | '를'
                            | '가'
                            | '에'
                            | '으'
                            | '로'
                            | '과'
                            | '와'
                            | '만'
                            | '도'
                            | '짜'
                            | '정'
                            | '쯤'
                            | '요'
                            | '예'
                    )
            });
        if ends_word && !korean_word && best.is_none_or(|b| spelling.len() > b.1 - skipped) {
            best = Some((*unit, skipped + spelling.len()));
        }
    }
    best
}

/// Whether two quantities are the same, within rounding of the written figures.
pub fn same_quantity(a: f64, ua: &Unit, b: f64, ub: &Unit) -> bool {
    if ua.dimension != ub.dimension {
        return false;
    }
    if ua.dimension == Currency && ua.symbol != ub.symbol {
        return false;
    }
    let (x, y) = (ua.base(a), ub.base(b));
    // A written figure is rounded: "0.3 miles" for 500 m is not the same, "1.6 km" for a mile
    // is within half a unit of its last digit. Temperatures are compared to a tenth of a degree.
    let tol = if ua.dimension == Temperature {
        0.05
    } else {
        1e-9_f64.max(x.abs().max(y.abs()) * 1e-6)
    };
    (x - y).abs() <= tol
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Option<&'static str> {
        unit_at(s).map(|(u, _)| u.symbol)
    }

    #[test]
    fn units_after_a_number() {
        assert_eq!(at(" km"), Some("km"));
        assert_eq!(at(" kilometers away"), Some("km"));
        assert_eq!(at(" miles."), Some("mi"));
        assert_eq!(at("m tall"), Some("m"));
        assert_eq!(at(" min"), Some("min"));
        assert_eq!(at(" apples"), None);
        assert_eq!(at(" in the box"), None);
        assert_eq!(at(" degrees celsius"), Some("°C"));
        assert_eq!(at(" degrees"), None);
        assert_eq!(at("きろめーとるです"), Some("km"));
        assert_eq!(at("킬로미터입니다"), Some("km"));
        assert_eq!(at("분입니다"), Some("min"));
        assert_eq!(at("분의 1"), None);
        assert_eq!(at("分の1"), None);
        assert_eq!(at(" km/h"), Some("km/h"));
        assert_eq!(at("%"), Some("%"));
        let before = |s: &str| unit_before(s).map(|u| u.symbol);
        assert_eq!(before("目盛りは華氏"), Some("°F"));
        assert_eq!(before("섭씨 "), Some("°C"));
        assert_eq!(before("가격은 $"), Some("USD"));
        assert_eq!(before("氏"), None);
    }

    #[test]
    fn conversions_within_a_dimension() {
        assert!(same_quantity(0.5, &KM, 500.0, &M));
        assert!(same_quantity(3000.0, &G, 3.0, &KG));
        assert!(same_quantity(120.0, &MIN, 2.0, &HOUR));
        assert!(!same_quantity(5.0, &MI, 5.0, &KM));
        assert!(!same_quantity(10.0, &MM, 10.0, &CM));
        assert!(!same_quantity(5.0, &KM, 5.0, &KG));
        assert!(same_quantity(68.0, &FAHRENHEIT, 20.0, &CELSIUS));
        assert!(!same_quantity(5.0, &USD, 5.0, &JPY));
    }
}
