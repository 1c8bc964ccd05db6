-- What each replica of a run's model did while the engine worked on the run (requests,
-- failures, mean latency, times taken out), summed over the engine calls that filled it. A
-- JSON array kept on this machine: team members see their own engine's figures.
ALTER TABLE runs ADD COLUMN replicas TEXT;
