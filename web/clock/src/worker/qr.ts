// Reading a QR code from a picture, on the page (photos) and in the decoding worker (camera
// frames, decode.worker.ts): the browser's BarcodeDetector where it reads QR codes; otherwise
// jsqr on the picture's pixels, loaded only when first needed so that it is not part of the app's
// first download.
import type jsQR from 'jsqr';

type JsQR = typeof jsQR;

interface Detector {
  detect(source: CanvasImageSource | ImageBitmap): Promise<{ rawValue: string }[]>;
}
interface DetectorClass {
  new (options: { formats: string[] }): Detector;
  getSupportedFormats?: () => Promise<string[]>;
}

let detector: Promise<Detector | null> | null = null;

/** The browser's QR detector, or null when it has none for QR codes. */
function nativeDetector(): Promise<Detector | null> {
  return (detector ??= (async () => {
    const D = (globalThis as unknown as { BarcodeDetector?: DetectorClass }).BarcodeDetector;
    if (!D) return null;
    try {
      const formats = D.getSupportedFormats ? await D.getSupportedFormats() : ['qr_code'];
      return formats.includes('qr_code') ? new D({ formats: ['qr_code'] }) : null;
    } catch {
      return null;
    }
  })());
}

let jsqr: Promise<JsQR> | null = null;
const loadJsqr = () => (jsqr ??= import('jsqr').then((m) => m.default));

/** Longest side of a camera frame worth decoding: jsqr finds a code filling part of it as well on fewer pixels. */
export const FRAME_PX = 640;

/**
 * Decodes a QR code from an image, a video frame or a bitmap (`width` × `height`), drawing it on
 * `work` when its pixels are needed; null when none is seen. `thorough`: a photo, decoded once
 * (larger, inverted codes too); otherwise a camera frame, one of many (the quick pass).
 */
export async function decode(source: HTMLVideoElement | HTMLImageElement | ImageBitmap, width: number, height: number, work: HTMLCanvasElement | OffscreenCanvas, thorough: boolean): Promise<string | null> {
  const native = await nativeDetector();
  if (native) {
    try {
      const found = await native.detect(source);
      return found[0]?.rawValue || null;
    } catch {
      // Some implementations refuse some sources: decode the pixels instead.
    }
  }
  const decodeQr = await loadJsqr();
  const scale = Math.min(1, (thorough ? 1000 : FRAME_PX) / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  work.width = w;
  work.height = h;
  const g = work.getContext('2d', { willReadFrequently: true });
  if (!g) return null;
  g.drawImage(source, 0, 0, w, h);
  const pixels = g.getImageData(0, 0, w, h);
  return decodeQr(pixels.data, w, h, { inversionAttempts: thorough ? 'attemptBoth' : 'dontInvert' })?.data || null;
}
