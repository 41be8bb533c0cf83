// A fake camera's picture for the browser tests and the clock benchmark: Chromium plays a Y4M file
// as the camera (--use-file-for-fake-video-capture); this one shows a QR code.
import QRCode from 'qrcode';

/**
 * A Y4M video (C420, grey: U = V = 128) of `frames` identical frames at `fps` (a phone camera's 30) showing `text` as a QR code
 * (black modules on white, a quiet zone of 4 modules), centred in a width × height picture.
 */
export function qrVideo(text: string, width = 640, height = 480, frames = 5, fps = 30): Buffer {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const scale = Math.floor(Math.min(width, height) / (modules.size + 8));
  const side = (modules.size + 8) * scale;
  const x0 = Math.floor((width - side) / 2) + 4 * scale;
  const y0 = Math.floor((height - side) / 2) + 4 * scale;
  const y = Buffer.alloc(width * height, 235);
  for (let r = 0; r < modules.size; r++) {
    for (let c = 0; c < modules.size; c++) {
      if (!modules.get(r, c)) continue;
      for (let dy = 0; dy < scale; dy++) y.fill(16, (y0 + r * scale + dy) * width + x0 + c * scale, (y0 + r * scale + dy) * width + x0 + (c + 1) * scale);
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, chroma]);
  return Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`), ...Array.from({ length: frames }, () => frame)]);
}
