// Undo/redo over saved states of one item. Every step is saved as a new revision by the caller,
// so history on disk is never rewritten.

export class UndoStack<T> {
  private past: T[] = [];
  private future: T[] = [];

  /** Records the state that was current before a new one was saved. */
  record(previous: T): void {
    this.past.push(previous);
    this.future = [];
  }

  /** The state to go back to, given the current one; null when there is none. */
  undo(current: T): T | null {
    const prev = this.past.pop();
    if (prev === undefined) return null;
    this.future.push(current);
    return prev;
  }

  redo(current: T): T | null {
    const next = this.future.pop();
    if (next === undefined) return null;
    this.past.push(current);
    return next;
  }

  get canUndo(): boolean {
    return this.past.length > 0;
  }

  get canRedo(): boolean {
    return this.future.length > 0;
  }

  clear(): void {
    this.past = [];
    this.future = [];
  }
}
