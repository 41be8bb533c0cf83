// Light and dark themes, remembered in this browser.
import { createContext, useContext, useState, type ReactNode } from 'react';

const KEY = 'fieldops.admin.theme';
const ThemeContext = createContext<{ dark: boolean; toggle: () => void }>({ dark: false, toggle: () => {} });

export function ThemeState({ children }: { children: (dark: boolean) => ReactNode }) {
  const [dark, setDark] = useState(() => localStorage.getItem(KEY) === 'dark');
  const toggle = () => {
    localStorage.setItem(KEY, dark ? 'light' : 'dark');
    setDark(!dark);
  };
  return <ThemeContext.Provider value={{ dark, toggle }}>{children(dark)}</ThemeContext.Provider>;
}

export const useTheme = () => useContext(ThemeContext);
