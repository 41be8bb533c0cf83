// The decoding worker: reads the QR code in camera frames off the page's thread, so that decoding
// (jsqr takes tens of milliseconds a frame on a phone) never delays a tap. Each message is an
// ImageBitmap (transferred, closed here); each answer the text read, or null.
import { decode } from './qr.ts';

const scope = self as unknown as { onmessage: ((e: MessageEvent<ImageBitmap>) => void) | null; postMessage(text: string | null): void };
const work = new OffscreenCanvas(1, 1);

scope.onmessage = (e) => {
  const frame = e.data;
  void decode(frame, frame.width, frame.height, work, false)
    .catch(() => null)
    .then((text) => {
      frame.close();
      scope.postMessage(text);
    });
};
