// Captcha images: text drawn as SVG paths (no system fonts needed), rendered to PNG.
import { Resvg } from '@resvg/resvg-js';
import svgCaptcha from 'svg-captcha';

export function renderCaptcha(): { text: string; png: Buffer } {
  const { text, data } = svgCaptcha.create({
    size: 4,
    noise: 2,
    color: true,
    ignoreChars: '0oO1ilI',
    background: '#f2f4f7',
    width: 120,
    height: 40,
  });
  const png = new Resvg(data, { background: '#f2f4f7', fitTo: { mode: 'original' } }).render().asPng();
  return { text, png };
}
