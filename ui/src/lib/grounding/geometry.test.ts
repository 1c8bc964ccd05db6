import { describe, expect, it } from 'vitest';
import { actualSize, boxFrom, drag, fit, hitTest, nextPersonLabel, nudge, toImage, toScreen, zoomAt, zoomToBox } from './geometry';

const box = (x_min: number, y_min: number, x_max: number, y_max: number) => ({ x_min, y_min, x_max, y_max });

describe('view transform', () => {
  it('maps screen to image and back at any zoom', () => {
    const v = { scale: 0.37, tx: 12, ty: -40 };
    const p = { x: 300, y: 200 };
    const back = toScreen(v, toImage(v, p));
    expect(back.x).toBeCloseTo(300, 9);
    expect(back.y).toBeCloseTo(200, 9);
  });
  it('fits a 3000x4000 photo in a 600x400 viewport, centred', () => {
    const v = fit(3000, 4000, 600, 400);
    expect(v.scale).toBeCloseTo(384 / 4000, 12);
    expect(v.tx).toBeCloseTo((600 - 3000 * v.scale) / 2, 9);
    expect(v.ty).toBeCloseTo(8, 9);
  });
  it('zooming keeps the point under the cursor still', () => {
    const v = { scale: 0.5, tx: 10, ty: 20 };
    const at = { x: 123, y: 77 };
    const before = toImage(v, at);
    const after = toImage(zoomAt(v, 2.5, at), at);
    expect(after.x).toBeCloseTo(before.x, 9);
    expect(after.y).toBeCloseTo(before.y, 9);
    expect(actualSize(v, 400, 300).scale).toBe(1);
  });
  it('zoom to box centres it', () => {
    const v = zoomToBox(box(100, 100, 200, 300), 800, 600);
    const c = toScreen(v, { x: 150, y: 200 });
    expect(c.x).toBeCloseTo(400, 9);
    expect(c.y).toBeCloseTo(300, 9);
  });
});

describe('box edits', () => {
  it('draws from any corner, clamped to the image, in whole pixels', () => {
    expect(boxFrom({ x: 50.6, y: 80.2 }, { x: -5, y: 10.4 }, 100, 100)).toEqual(box(0, 10, 51, 80));
    expect(boxFrom({ x: 90, y: 90 }, { x: 140, y: 120 }, 100, 100)).toEqual(box(90, 90, 100, 100));
  });
  it('resizes from a handle and flips when dragged past the other side', () => {
    expect(drag(box(10, 10, 50, 50), 'se', 5, 7, 100, 100)).toEqual(box(10, 10, 55, 57));
    expect(drag(box(10, 10, 50, 50), 'w', 60, 0, 100, 100)).toEqual(box(50, 10, 70, 50));
    expect(drag(box(10, 10, 50, 50), 'n', 0, -20, 100, 100)).toEqual(box(10, 0, 50, 50));
  });
  it('moves and nudges without leaving the image or changing size', () => {
    expect(nudge(box(10, 10, 50, 50), 10, -1, 100, 100)).toEqual(box(20, 9, 60, 49));
    expect(nudge(box(10, 10, 50, 50), 100, 100, 100, 100)).toEqual(box(60, 60, 100, 100));
    expect(drag(box(10, 10, 50, 50), 'move', -30, 0, 100, 100)).toEqual(box(0, 10, 40, 50));
  });
  it('hit-tests handles of the selected box first, then the smallest box', () => {
    const boxes = [box(0, 0, 100, 100), box(40, 40, 60, 60)];
    expect(hitTest(boxes, null, { x: 50, y: 50 }, 2)).toEqual({ index: 1, handle: 'move' });
    expect(hitTest(boxes, 0, { x: 99, y: 1 }, 3)).toEqual({ index: 0, handle: 'ne' });
    expect(hitTest(boxes, null, { x: 150, y: 50 }, 2)).toBeNull();
  });
  it('numbers new person boxes after the existing ones', () => {
    expect(nextPersonLabel(['person1', 'person3', null])).toBe('person2');
    expect(nextPersonLabel([])).toBe('person1');
  });
});
