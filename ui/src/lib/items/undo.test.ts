import { describe, expect, it } from 'vitest';
import { UndoStack } from './undo';

describe('UndoStack', () => {
  it('walks back and forth and drops the future on a new edit', () => {
    const s = new UndoStack<string>();
    s.record('a');
    s.record('b');
    expect(s.undo('c')).toBe('b');
    expect(s.undo('b')).toBe('a');
    expect(s.undo('a')).toBeNull();
    expect(s.redo('a')).toBe('b');
    s.record('b');
    expect(s.canRedo).toBe(false);
  });
});
