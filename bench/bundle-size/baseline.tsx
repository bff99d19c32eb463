// The React-only baseline of the bundle benchmark: what any React app already pays.
import { createRoot } from "react-dom/client";

createRoot(document.getElementById("root") as HTMLElement).render(<p>Hello</p>);
