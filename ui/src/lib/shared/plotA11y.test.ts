import { describe, expect, it } from 'vitest';
import { accessibleChart } from './plotA11y';

describe('charts for assistive technology', () => {
  it('label the chart as an image and give labelled mark groups a role', () => {
    const figure = document.createElement('figure');
    figure.innerHTML = '<svg><g aria-label="bar"><rect></rect></g><g></g></svg>';
    accessibleChart(figure, 'Accuracy before and after');
    const svg = figure.querySelector('svg')!;
    expect(svg.getAttribute('role')).toBe('img');
    expect(svg.getAttribute('aria-label')).toBe('Accuracy before and after');
    expect(figure.querySelector('g[aria-label]')!.getAttribute('role')).toBe('group');
    expect(figure.querySelectorAll('g[role]').length).toBe(1);
  });
});
