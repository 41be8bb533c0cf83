// Placeholder until the screen lands.
export default function Webhooks() {
  return null;
}
