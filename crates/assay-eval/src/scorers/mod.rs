//! Scorers: one trait, each returning a score plus the evidence a person needs to check it.

pub mod bleu;
pub mod checklist_judge;
pub mod choice;
pub mod crag_qa;
pub mod grounding;
pub mod hybrid;
pub mod identification;
pub mod judge;
pub mod judge_prompts;
pub mod normalize;
pub mod soft;
pub mod text;
mod value_rules;

use serde::{Deserialize, Serialize};

use assay_core::{AnswerFormat, ItemContent};

/// How a response was scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// In [0, 1]; None when the response could not be parsed (counted and shown, not wrong).
    pub score: Option<f64>,
    /// What the scorer read from the response (a letter, a box, a verdict).
    pub parsed: Option<String>,
    /// Everything needed to check the decision by hand.
    pub evidence: serde_json::Value,
    /// Several answers offered without commitment (a multiple-choice hedge): scored as a miss
    /// and kept apart as its own outcome.
    #[serde(default)]
    pub hedged: bool,
}

impl Scored {
    pub fn unparsed(evidence: serde_json::Value) -> Self {
        Self {
            score: None,
            parsed: None,
            evidence,
            hedged: false,
        }
    }
    pub fn outcome(&self) -> &'static str {
        if self.hedged {
            "hedged"
        } else if self.score.is_some() {
            "scored"
        } else {
            "unparsed"
        }
    }
}

/// What a scorer must know about how the item was asked, beyond the item itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreContext {
    /// How the model writes boxes.
    pub boxes: grounding::BoxConvention,
    /// Longest side of the images as sent; None = sent at their original size (or unknown,
    /// for predictions recorded by another tool without a stated size).
    pub max_side: Option<u32>,
}

impl ScoreContext {
    /// The size image `index` of an item was sent at.
    pub fn sent_size(&self, _index: usize, img: &assay_core::ItemImage) -> (u32, u32) {
        grounding::sent_size(
            self.boxes,
            self.max_side.unwrap_or(u32::MAX),
            img.width,
            img.height,
        )
    }

    /// The size image `img` is sent at after `view`. A crop under CRAG-MM's frame is cut
    /// from the 960 x 1280 image, so it is sent at its size in that frame.
    pub fn sent_size_of(
        &self,
        img: &assay_core::ItemImage,
        view: Option<&assay_core::imaging::ImageView>,
    ) -> (u32, u32) {
        let Some(v) = view else {
            return self.sent_size(0, img);
        };
        let (w, h) = v.size(img.width, img.height);
        // A crop cut from a resized frame is sent as it was cut.
        if let assay_core::imaging::ImageView::FrameCrop { .. } = v {
            return (w, h);
        }
        if self.boxes == grounding::BoxConvention::CragMm {
            if let assay_core::imaging::ImageView::Crop { .. } = v {
                let (fw, fh) = grounding::CRAG_MM_SIZE;
                let sx = fw as f64 / img.width.max(1) as f64;
                let sy = fh as f64 / img.height.max(1) as f64;
                return (
                    ((w as f64 * sx).round() as u32).max(1),
                    ((h as f64 * sy).round() as u32).max(1),
                );
            }
        }
        grounding::sent_size(self.boxes, self.max_side.unwrap_or(u32::MAX), w, h)
    }
}

/// A scorer that needs no model call.
pub trait Scorer: Send + Sync {
    fn name(&self) -> &'static str;
    fn score(&self, item: &ItemContent, response: &str, ctx: &ScoreContext) -> Scored;
}

assay_core::named_enum! {
    /// Scorer names as stored on runs.
    pub enum ScorerKind {
        Choice = "choice",
        SoftMatch = "soft_match",
        Judge = "judge",
        ChecklistJudge = "checklist_judge",
        /// Heron-Bench style: a judge rates the answer and the reference 1-10.
        Rating = "rating",
        Grounding = "grounding",
        Bleu = "bleu",
        /// CRAG-MM-Diagnostics' object identification: exact match on the entity name or an
        /// alias, else the judge (when the run has one).
        Identification = "identification",
        /// CRAG-MM-Diagnostics' answer stage: exact match on the reference answer, else the
        /// official QA judge (when the run has one).
        CragQa = "crag_qa",
    }
}

impl ScorerKind {
    /// The default for an answer format (the papers' protocols, DOMAIN.md).
    pub fn default_for(format: AnswerFormat) -> Self {
        match format {
            AnswerFormat::MultipleChoice => Self::Choice,
            AnswerFormat::ShortAnswer => Self::SoftMatch,
            AnswerFormat::Checklist => Self::ChecklistJudge,
            AnswerFormat::Grounding => Self::Grounding,
            AnswerFormat::FreeForm => Self::Bleu,
        }
    }
    /// The version of the kind's rules, bumped when they change (docs/SCORING.md), so each
    /// stored number says which rules made it; results stored before versions were kept read
    /// as version 1.
    pub fn version(self) -> i64 {
        match self {
            // Issue 49: elimination, "both", alternatives left open, options in other words;
            // units, clock times, shares, ordinals, restated yes/no, readings, compounds.
            // 4 (holdout5): options by their place, answer tags and JSON fields, romanised
            // statements, written corrections, letters denied together, conditions.
            // 5 (holdout8): an option's time or date written another way. 6 (holdout9, the
            // third review): a verdict on each option; two options' times named is no letter.
            // 7 (holdout10): a figure's angle or point is no option, codes spaced otherwise,
            // one-letter typos, options of one value in several units read by their text.
            // 8 (the fourth review): a letter stated outranks a verdict list.
            // 9 (holdout12, holdout13): an option's figure offered with another later
            // ("7月か8月のどちらか"), an option's text after a noun and か, "X 아니면 Y";
            // markdown bold is no operand, a list's dash no range.
            // 10 (holdout10, holdout14, the fifth review): an option's text in brackets after
            // its letter, a hiragana か only, 아니면 after a particle is a condition, a list of
            // bare candidates is a hedge; (the sixth review) brackets that hold an alternative
            // ("B (or possibly C)") are a hedge, not the option's text; (holdout16) a reply in
            // another script than the options is unsure; (the seventh review) a concession at
            // the end keeps an alternative, bare maybe/어쩌면/일지도, "doesn't seem right",
            // 가능성이 낮아, a numeric option in another unit.
            // 11 (holdout18): options that are each one colour, or kana words, read like short
            // answers (`하얀색이에요` for 흰색, `上野です` for うえの), the figure a connective ends
            // (`라떼가 4,000원이고 아메리카노는 3,500원`).
            // 12 (holdout19): an option's leading article is no word of it ("An electric
            // scooter" for "A scooter").
            // 13 (holdout20, the ninth review): an option named by the question's marker
            // ((2), ①, ウ, 가) or by the label the options do not share ("Answer: X" for
            // "Layer X", 歯車マーク), a code named and denied, an article only as a whole phrase.
            // 14 (the tenth review): markers and labels give way to a self-correction, answer
            // marks open their line, labels need a kanji or two katakana, no hyphenated noun.
            // 15 (holdout21): the option a comparison opens with ("June has the tallest bar,
            // just above May"), an option that is a modal's word is no modal, "b번 같아요".
            // 16 (holdout22, holdout23): options listed and then left undecided are a hedge;
            // "but" is no content word of a description; the one option stated with a copula;
            // an article before a figure's phrase ("A 20-dollar bill").
            // 17 (holdout25): "Final: C" after a self-correction; a decimal comma before a
            // unit in an option's figure; a last sentence that is only a figure.
            // 18 (adversarial15): a closer look corrects only with a denial, いや as a word,
            // a change meant and not made, a conclusion that is an image alone, a doubt
            // conceded before one image.
            // 19 (holdout29, adversarial16): LaTeX read once, a formula's quantity is no
            // option, a hedge taken back by a correction, "####", 잠깐/いや as interjections, a
            // closer look denies the first answer, a conceded doubt answered in the question's
            // words.
            // 20 (adversarial17, holdout30): "Hmm" is no correction, いやまてよ and 잠깐 생각해
            // 보니 are, にしようか weighs and にしました commits, an exam line of marks (A＝×、
            // B＝○), a bulleted list of letters is a hedge; and the eighteenth review's
            // narrowings ("Hmm, no —", に変えます, a supposed D라면).
            // 21 (holdout31): the numbers read as the short answers' version 21 (a sale price's
            // final line, two figures of the asked counter offered after another).
            Self::Choice => 21,
            // 4: a Japanese reply that narrows the question's bare noun restates it
            // ("部屋の電気はついています" for "電気はついていますか？"). 5 (holdout5): dates, other
            // scripts, denied denials, conditions, "to be exact", kana, Sino-Korean and Roman
            // numerals, a result after an arrow; a qualifier after a name is unsure.
            // 6 (holdout8): "not X but Y", a final answer line, scores and sizes, weekdays,
            // powers of ten, pressure, frequency, voltage, energy and cubic units, labelled
            // figures, conversions restated, abbreviations, spaced names, a measured figure is
            // no year. 7 (holdout9, the third review): thinking blocks, mixed fractions,
            // asides, another size of a measure, an alternative after けど, and the review's
            // narrowings (first mention corrected, last answer line, ranges of days).
            // 8 (holdout10): footnotes, spaced thousands, "3.2K", codes ("17C", "@name"),
            // amperes, "conventionally X, but", faux, the interjection 아니 only.
            // 9 (the fourth review): thinking blocks between replies, a quoted </think>, dates
            // are no mixed fractions, shares of a whole ("2 on each side"), the subject of
            // "may be", the absent noun only beside another thing counted, sizes 大/小/中,
            // alternatives in kanji or katakana, 즉 alone, eras as a suffix.
            // 10 (holdout12): the reference after a noun and か ("ピンクか紫"), a figure
            // labelled by a year or by a kanji word inside the question's, a sum after its
            // parts, the figure read offered with another later on; (holdout13) a game clock
            // in minutes and seconds, "No X" for what is prohibited, floors (B1, 地下1階),
            // 半額/반값 and a discount asked (2割引), a list's other counters, a phrase of kana
            // and kanji by its reading, "X 아니면 Y".
            // 11 (holdout10, holdout14, the fifth review): a larger count if more is counted,
            // codes with a letter before digits, 억/万 scales, "A인 것 같기도 하고 B", a label
            // exactly the question's word outranks one inside it, sums only after "plus",
            // clocks only for time left, prohibitions by their form and the asking clause,
            // permitted asks deny the prohibited, no floor from a height or an exit's code,
            // 半額 as a sale's name, 名/알 as 人/개; (holdout14) the clock time whose label is
            // asked; (the sixth review) the asking clause without format instructions or
            // leading conditions, a subgroup asked is no hedge, sums said as one ("making"),
            // "no X or Y", scales the question names, the second of two offered, time gone is
            // no clock, labels of another counter left out; (holdout16) a bare list of three
            // or more, a reply that only asks, か before katakana as written; (the seventh
            // review) hedges, negated lists, "far from", currency signs, years and months,
            // tsubo/pyeong, groups counted, none at all for emptiness; (holdout17)
            // "Aか、Bかのどちらか", ので/から as a result's mark, an opening clause that answers.
            // 12 (holdout18, the eighth review): colour terms in their forms and languages,
            // a question repeated back restates nothing, a kana or Korean word before another
            // noun is its modifier, "could also be", っぽく見えますが, a subject of the
            // question's words, 製, a suffix before its denial, articles in a phrase, "aren't
            // any", sums by one counter notion, words in another form (unsure), opposite Korean
            // states, ないし/틀림없/아닌가 싶 are no denials.
            // 13 (holdout19): a year after a figure labels it, a figure labelled by a year
            // need not end its clause, 지만 and 해서 bound a label, a label sharing a question's
            // word leans to it, time labels compared without endings, an impression's mark after
            // its figure, a part set aside is no count, floors before ordinals and in words, a
            // unit apart from its figure, an answer mark before a share, a name the reference
            // spaces, a reference stated for another label.
            // 14 (holdout20, the ninth review): a figure of another dimension than the
            // reference's, a decimal for a fraction, a share labelled or concluded, Sino-Korean
            // numerals before metric units, a unit's sign before an operator, quotes before a
            // Korean denial, する verbs denied, a screen control's kind after its name; narrowed:
            // no label by one shared word, "in" alone before a year, a result particle and its
            // verb end a clause, answer marks open their line, English label words as written,
            // the part asked kept, another label only where the asked word labels, word floors
            // after on/at/to the; left and right in their forms and languages, and where a
            // movement starts is not where it goes.
            // 15 (holdout21, the tenth review): a colour given to another thing than the one
            // asked, 一見…に見えます, a masked figure must be a result, decimals with a unit
            // measure, a conclusion only breaks a tie between labels, more sources of a
            // movement, a question asking where from, "you're right", しないと, 違う at a
            // sentence's end, 아닐 리가 없다.
            // 16 (holdout22): Japanese era dates, Hanja read in Hangul (libhangul's table), a
            // Korean premise (이므로) before the answer, a time of the opposite event, a yes led
            // by "but", landmarks named after their city, how a thing is sold; (holdout23) a
            // month of a year, a total as the sum of every figure before it, a figure before a
            // hyphenated noun, a head or 行き before a Japanese denial, 模様, side streets.
            // 17 (holdout24, holdout25, adversarial11): a year of a Japanese era and dates in
            // kanji numerals, 두음법칙 on a Hanja reading, the answer field of JSON or YAML, a
            // bracketed citation is no figure, a decade, a conclusion below a table, a question
            // back asking which is meant, a possessive, a final answer after a sentence, a
            // decimal comma before a unit, "4時15分前", "one and a half", a correction to the
            // opposite side or after the opening clause, a last sentence that is only a figure,
            // the labelled line the question names.
            // 18 (adversarial15): "actually" inside a clause, details not made out after an
            // answer, both sides likely, a dismissal after a correction, a negation modifying a
            // noun, the zero count's clause and word, a family name that ends its name, titles
            // only for a person, "Is." with its stop, a measured figure is no place.
            // 19 (holdout29, adversarial16): LaTeX, the minus sign and E notation read once,
            // equations by their terms, points, radians against degrees, force, power and
            // resistance, shares offered together, a conclusion naming another thing; and the
            // sixteenth review's narrowings.
            // 20 (holdout30, adversarial17): clinical doubts answer neither, a finding naming
            // the asked thing answers, 華氏/섭씨 before a figure, conversions in brackets,
            // traffic-light colours, how it looks against what it is, a Korean noun made a
            // verb, concluded equations and points, code letters, multiples of π; and the
            // seventeenth and eighteenth reviews' narrowings.
            // 21 (holdout31): "unanswerable" answered by a decline without a guess, the figure
            // counting the asked thing, a breakdown's final line, a model's variant, mixes and
            // vegan leather, loanwords by their consonants, quoted text said whole, candidates
            // declined, a conclusion under a condition; one list of conclusion words; and the
            // nineteenth review's narrowings.
            Self::SoftMatch => 21,
            // The checklist judge: HAERAE-Vision's official prompt and `<score>` reading.
            Self::ChecklistJudge => 2,
            _ => 1,
        }
    }
    pub fn needs_judge(self) -> bool {
        matches!(self, Self::Judge | Self::ChecklistJudge | Self::Rating)
    }
    /// Kinds that call a judge when one is given (those that need one, and identification for
    /// the replies that are not an exact match).
    pub fn uses_judge(self) -> bool {
        self.needs_judge() || self.exact_then_judge()
    }
    /// CRAG-MM-Diagnostics' judged stages: an exact match decides alone, and a miss goes to
    /// the judge with the stage's official prompt when the run has one (wrong without).
    pub fn exact_then_judge(self) -> bool {
        matches!(self, Self::Identification | Self::CragQa)
    }
    /// The judge request (system, user) for a reply the exact-match rule of an
    /// [`exact_then_judge`](Self::exact_then_judge) kind missed: `parsed` is what the rule read,
    /// `question` the question as asked.
    pub fn miss_request(
        self,
        question: &str,
        item: &ItemContent,
        parsed: &str,
    ) -> (Option<&'static str>, String) {
        match self {
            Self::CragQa => (
                Some(crag_qa::JUDGE_SYSTEM),
                crag_qa::judge_prompt(question, item, parsed),
            ),
            _ => (
                Some(identification::JUDGE_SYSTEM),
                identification::judge_prompt(item, parsed),
            ),
        }
    }
    /// The exact-match miss `local` completed by the judge's reply `raw`.
    pub fn miss_judged(self, local: &Scored, raw: &str, judge_model: &str) -> Scored {
        let mut s = identification::judged(local, raw, judge_model);
        if self == Self::CragQa && s.score.is_some() {
            s.evidence["rule"] = serde_json::json!(if s.score == Some(1.0) {
                "judge: correct by the ground truth"
            } else {
                "judge: not correct"
            });
        }
        s
    }
    /// The local scorer for kinds that need no model.
    pub fn local(self) -> Option<Box<dyn Scorer>> {
        match self {
            Self::Choice => Some(Box::new(choice::ChoiceScorer)),
            Self::SoftMatch => Some(Box::new(soft::SoftMatch)),
            Self::Grounding => Some(Box::new(grounding::GroundingScorer)),
            Self::Bleu => Some(Box::new(bleu::BleuScorer::default())),
            Self::Identification => Some(Box::new(identification::IdentificationScorer)),
            Self::CragQa => Some(Box::new(crag_qa::CragQaScorer)),
            Self::Judge | Self::ChecklistJudge | Self::Rating => None,
        }
    }
}
