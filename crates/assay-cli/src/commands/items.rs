use clap::Args;

use super::Ctx;
use crate::output;
use assay_core::store::{Author, Edit, Filter, Page, Range};
use assay_core::{IssueTag, ItemStatus, RefType, RefinementOp, Role};

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    #[arg(long, default_value_t = 50)]
    pub limit: i64,
    #[arg(long, default_value_t = 0)]
    pub offset: i64,
}

/// Which items: the same filters as the app's list.
#[derive(Args)]
pub struct FilterArgs {
    #[arg(long)]
    pub dataset: Vec<String>,
    #[arg(long)]
    pub category: Vec<String>,
    /// Refinement op, or "none" for items without one.
    #[arg(long)]
    pub op: Vec<String>,
    /// Issue tag.
    #[arg(long, value_parser = super::named::<IssueTag>(&IssueTag::NAMES))]
    pub tag: Vec<IssueTag>,
    #[arg(long, value_parser = super::named::<ItemStatus>(&ItemStatus::NAMES))]
    pub status: Vec<ItemStatus>,
    #[arg(long)]
    pub ref_type: Vec<String>,
    #[arg(long)]
    pub has_box: Option<bool>,
    /// Substring of question, answer or options (Japanese and Korean included).
    #[arg(long)]
    pub text: Option<String>,
    /// Box size ratio (box area / image area) range, MIN..MAX, either side optional: `..0.05`.
    #[arg(long, value_parser = parse_range)]
    pub size_ratio: Option<Range>,
    /// Distance of the box centre from the image centre (0 centred, 1 a corner), MIN..MAX.
    #[arg(long, value_parser = parse_range)]
    pub center_distance: Option<Range>,
    /// Saliency (see docs/SCORING.md), MIN..MAX.
    #[arg(long, value_parser = parse_range)]
    pub saliency: Option<Range>,
    /// Items dropped at this stage (its position, see `assay stages`).
    #[arg(long)]
    pub dropped_at: Option<i64>,
    /// Only the kept set (true) or only what filtering took out (false).
    #[arg(long)]
    pub kept: Option<bool>,
    /// Order by a column (ext_id, question, answer, category, op, status, ref_type, size_ratio,
    /// center_distance, saliency, rev, updated_at, assignee, agreement, run_score=RUN);
    /// `COLUMN:desc` sorts descending.
    #[arg(long)]
    pub sort: Option<String>,
}

fn parse_range(s: &str) -> Result<Range, String> {
    let (lo, hi) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?} is not a range like 0.01..0.05, ..0.05 or 0.5.."))?;
    let side = |v: &str| -> Result<Option<f64>, String> {
        let v = v.trim();
        if v.is_empty() {
            return Ok(None);
        }
        v.parse()
            .map(Some)
            .map_err(|_| format!("{v:?} is not a number"))
    };
    Ok(Range {
        min: side(lo)?,
        max: side(hi)?,
    })
}

fn parse_all<T>(
    vals: &[String],
    what: &str,
    f: impl Fn(&str) -> Option<T>,
) -> anyhow::Result<Vec<T>> {
    vals.iter()
        .map(|v| f(v).ok_or_else(|| anyhow::anyhow!("unknown {what} {v:?}")))
        .collect()
}

fn parse_sort(v: &str) -> anyhow::Result<assay_core::store::Sort> {
    let (desc, name) = match v.strip_suffix(":desc") {
        Some(n) => (true, n),
        None => (false, v.strip_suffix(":asc").unwrap_or(v)),
    };
    // A run's score names its run: run_score=12.
    let (name, run) = match name.split_once('=') {
        Some((n, run)) => (
            n,
            Some(
                run.parse::<i64>()
                    .map_err(|_| anyhow::anyhow!("{v:?}: a run is a number (run_score=12)"))?,
            ),
        ),
        None => (name, None),
    };
    let column = name
        .parse::<assay_core::store::SortColumn>()
        .map_err(anyhow::Error::msg)?;
    Ok(assay_core::store::Sort { column, desc, run })
}

pub fn list(ctx: &Ctx, a: ListArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let filter = filter_from(&p, &a.filter)?;
    let res = p.query(
        &filter,
        Page {
            offset: a.offset,
            limit: a.limit,
        },
    )?;
    list_out(ctx, &p, res)
}

/// The store's filter for the command line's filter flags.
pub fn filter_from(p: &assay_core::Project, a: &FilterArgs) -> anyhow::Result<Filter> {
    let mut datasets = Vec::new();
    for name in &a.dataset {
        datasets.push(p.dataset_by_name(name)?.id);
    }
    let filter = Filter {
        datasets,
        categories: a.category.clone(),
        ops: parse_all(&a.op, "op", |s| {
            if s == "none" {
                Some(None)
            } else {
                RefinementOp::parse(s).map(Some)
            }
        })?,
        tags: a.tag.clone(),
        statuses: a.status.clone(),
        ref_types: parse_all(
            &a.ref_type,
            "referring-expression type",
            RefType::parse_label,
        )?,
        formats: Vec::new(),
        has_box: a.has_box,
        size_ratio: a.size_ratio,
        center_distance: a.center_distance,
        saliency: a.saliency,
        dropped_at: a.dropped_at,
        kept: a.kept,
        text: a.text.clone(),
        ids: Vec::new(),
        sort: a.sort.as_deref().map(parse_sort).transpose()?,
    };
    Ok(filter)
}

fn list_out(
    ctx: &Ctx,
    p: &assay_core::Project,
    res: assay_core::store::QueryResult,
) -> anyhow::Result<()> {
    if ctx.json {
        return output::json(&res);
    }
    let names: std::collections::HashMap<i64, String> =
        p.datasets()?.into_iter().map(|d| (d.id, d.name)).collect();
    println!("{} matching items", res.total);
    for r in res.rows {
        println!(
            "{:>7}  {:<18} {:<10} {:<16} {}",
            r.id,
            output::clip(
                &format!(
                    "{}/{}",
                    names.get(&r.dataset_id).map_or("?", |s| s),
                    r.ext_id
                ),
                18
            ),
            r.status.as_str(),
            r.op.map_or("-", |o| o.as_str()),
            output::clip(&r.question, 60)
        );
    }
    Ok(())
}

#[derive(Args)]
pub struct ShowArgs {
    pub dataset: String,
    /// The item's id in its source file.
    pub id: String,
}

pub fn show(ctx: &Ctx, a: ShowArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let id = p.item_id_by_ext(&a.dataset, &a.id)?;
    let item = p.item(id)?;
    let history = p.revisions(id)?;
    if ctx.json {
        return output::json(&serde_json::json!({"item": item, "history": history}));
    }
    let c = &item.content;
    println!(
        "{} / {}  (revision {}, {})",
        item.dataset,
        item.ext_id,
        item.rev,
        item.status.as_str()
    );
    println!("format:   {}", c.format.as_str());
    println!("question: {}", c.question);
    if let Some(a) = &c.answer {
        println!("answer:   {a}");
    }
    for (i, o) in c.options.iter().enumerate() {
        let mark = if c.correct_option == Some(i) {
            "*"
        } else {
            " "
        };
        let kind = o
            .kind
            .map(|k| format!(" [{}]", k.as_str()))
            .unwrap_or_default();
        println!("  {mark}{}. {}{kind}", (b'A' + i as u8) as char, o.text);
    }
    for (i, k) in c.checklist.iter().enumerate() {
        println!("  [{}] {k}", i + 1);
    }
    if c != &item.original {
        println!("original question: {}", item.original.question);
    }
    println!("history:");
    for h in history {
        println!(
            "  r{} {} {} {} {}",
            h.rev,
            h.created_at,
            h.author.as_deref().unwrap_or("import"),
            h.op.map_or("-", |o| o.as_str()),
            h.note.unwrap_or_default()
        );
    }
    Ok(())
}

#[derive(Args)]
pub struct EditArgs {
    pub dataset: String,
    pub id: String,
    #[arg(long)]
    pub user: String,
    #[arg(long, default_value = "annotator", value_parser = super::named::<Role>(&Role::NAMES))]
    pub role: Role,
    #[arg(long, default_value_t = 1)]
    pub round: i64,
    #[arg(long)]
    pub question: Option<String>,
    #[arg(long)]
    pub answer: Option<String>,
    #[arg(long)]
    pub op: Option<String>,
    #[arg(long)]
    pub tag: Vec<String>,
    #[arg(long)]
    pub note: Option<String>,
    /// The revision this edit was decided on (from `assay show`); if the item has changed
    /// since, nothing is saved and the command fails with a conflict. Default: the current one.
    #[arg(long)]
    pub base_rev: Option<i64>,
}

pub fn edit(ctx: &Ctx, a: EditArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let role = a.role;
    let user = p.sign_in(&a.user, role)?;
    let id = p.item_id_by_ext(&a.dataset, &a.id)?;
    let item = p.item(id)?;
    let mut content = item.content.clone();
    if let Some(q) = a.question {
        content.question = q;
    }
    if let Some(ans) = a.answer {
        content.answer = Some(ans);
    }
    let op = match a.op {
        Some(o) => Some(RefinementOp::parse(&o).ok_or_else(|| anyhow::anyhow!("unknown op {o}"))?),
        None => item.op,
    };
    let tags = if a.tag.is_empty() {
        item.tags
    } else {
        parse_all(&a.tag, "tag", IssueTag::parse)?
    };
    let edit = Edit {
        base_rev: Some(a.base_rev.unwrap_or(item.rev)),
        content,
        op,
        tags,
        status: ItemStatus::Edited,
        note: a.note,
    };
    let rev = p.save_edit(
        id,
        &edit,
        &Author {
            user_id: user.id,
            role,
            round: a.round,
        },
    )?;
    if ctx.json {
        output::json(&serde_json::json!({"item": id, "rev": rev}))
    } else {
        println!("saved revision {rev} of {}/{}", a.dataset, a.id);
        Ok(())
    }
}
