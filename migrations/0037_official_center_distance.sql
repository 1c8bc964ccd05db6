-- Distance to the centre as CRAG-MM-Diagnostics' code computes it (pixels over half the image's
-- diagonal) instead of Assay's per-axis normalisation: every item's box metrics are computed
-- again (store/grounding/boxes.rs `backfill_metrics`, run with this step), and with them the
-- saliency that uses the distance.
SELECT 1;
