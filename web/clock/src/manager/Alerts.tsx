// Placeholder until the screen lands.
export default function Alerts() {
  return null;
}
