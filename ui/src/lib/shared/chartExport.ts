// Saving a chart as the SVG the charting library drew, or as a PNG rasterised from it at twice
// the on-screen size (for slides and papers). The file is chosen in the system's save dialog and
// written by the shell (only .svg and .png through this path).
import { save } from '@tauri-apps/plugin-dialog';
import { api } from '../api/client';

/** The chart's SVG as a standalone document (namespaces and the XML header included). */
export function svgText(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('xmlns:xlink', 'http://www.w3.org/1999/xlink');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}`;
}

export async function pngBytes(svg: SVGSVGElement, scale = 2): Promise<Uint8Array> {
  const { width, height } = svg.getBoundingClientRect();
  const url = URL.createObjectURL(new Blob([svgText(svg)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = 'white';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob>((ok, fail) => canvas.toBlob((b) => (b ? ok(b) : fail(new Error('no PNG'))), 'image/png'));
    return new Uint8Array(await blob.arrayBuffer());
  } finally {
    URL.revokeObjectURL(url);
  }
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Asks where to save and writes the chart there; returns the path, or null if cancelled. */
export async function exportChart(svg: SVGSVGElement, name: string, kind: 'svg' | 'png'): Promise<string | null> {
  const path = await save({ defaultPath: `${name}.${kind}`, filters: [{ name: kind.toUpperCase(), extensions: [kind] }] });
  if (!path) return null;
  const bytes = kind === 'svg' ? new TextEncoder().encode(svgText(svg)) : await pngBytes(svg);
  await api.saveChart(path, base64(bytes));
  return path;
}
