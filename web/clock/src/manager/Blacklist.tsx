// Placeholder until the screen lands.
export default function Blacklist() {
  return null;
}
