/** Observable Plot labels its mark groups (`<g aria-label="bar">`), which ARIA does not allow on
 * an element without a role: the chart becomes one labelled image whose groups are groups. */
export function accessibleChart<T extends Element>(chart: T, label: string): T {
  const svg = chart instanceof SVGSVGElement ? chart : chart.querySelector('svg');
  svg?.setAttribute('role', 'img');
  svg?.setAttribute('aria-label', label);
  chart.querySelectorAll('g[aria-label]').forEach((g) => g.setAttribute('role', 'group'));
  return chart;
}
