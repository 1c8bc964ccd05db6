// Models saved on the Models page since the Evaluation page last looked: they are ticked in
// its run form, as they were when the model form sat beside it.
export const justSaved = $state<{ names: string[] }>({ names: [] });
