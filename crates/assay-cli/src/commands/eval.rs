use clap::{Args, Subcommand};

use super::Ctx;

#[derive(Subcommand)]
pub enum ModelCommand {
    /// List models.
    List,
}

#[derive(Args)]
pub struct EvalArgs {}

#[derive(Subcommand)]
pub enum PredictionsCommand {
    /// Import recorded predictions.
    Import,
}

#[derive(Args)]
pub struct TableArgs {}

pub fn model(_ctx: &Ctx, _c: ModelCommand) -> anyhow::Result<()> {
    anyhow::bail!("not available yet")
}
pub fn eval(_ctx: &Ctx, _a: EvalArgs) -> anyhow::Result<()> {
    anyhow::bail!("not available yet")
}
pub fn runs(_ctx: &Ctx) -> anyhow::Result<()> {
    anyhow::bail!("not available yet")
}
pub fn predictions(_ctx: &Ctx, _c: PredictionsCommand) -> anyhow::Result<()> {
    anyhow::bail!("not available yet")
}
pub fn table(_ctx: &Ctx, _a: TableArgs) -> anyhow::Result<()> {
    anyhow::bail!("not available yet")
}
