import "uplot/dist/uPlot.min.css";
import "./styles/base.css";
import "./styles/views.css";
import { createRoot } from "react-dom/client";
import { App } from "./App";

// The console's one script (the page's CSP allows nothing inline): render into the page's #root.
const root = document.getElementById("root");
if (root) createRoot(root).render(<App />);
