// @maity/ui: the hub's own small component set (Radix primitives, Tailwind classes, lucide icons).
export { Avatar, type AvatarProps, initials } from "./Avatar";
export { Badge, type BadgeProps, badgeVariants } from "./Badge";
export { Button, type ButtonProps, buttonVariants, IconButton, type IconButtonProps } from "./Button";
export { Checkbox, Switch } from "./Choice";
export { cn, focusRing } from "./cn";
export { Dialog, DialogClose, DialogContent, type DialogContentProps, DialogFooter, DialogTrigger } from "./Dialog";
export {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuGroup,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "./DropdownMenu";
export { controlClass, Input, type InputProps, Select, type SelectProps, Textarea, type TextareaProps } from "./Field";
export { Progress } from "./Progress";
export { RadioGroup, type RadioOption } from "./RadioGroup";
export { type Segment, SegmentedControl } from "./SegmentedControl";
export { Skeleton } from "./Skeleton";
export { Tabs, TabsContent, TabsList, TabsTrigger } from "./Tabs";
export { type ThemeChoice, ThemeProvider, useTheme } from "./theme";
export { THEME_STORAGE_KEY, themeScript } from "./themeScript";
export { ToastProvider, type ToastOptions, useToast } from "./Toast";
export { Tooltip, TooltipProvider } from "./Tooltip";
