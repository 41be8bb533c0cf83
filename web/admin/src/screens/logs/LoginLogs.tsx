// Placeholder until this screen is built (see screens/registry.tsx).
import { Pending } from '../status.tsx';

export default Pending;
