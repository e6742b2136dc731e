//! Toasts: short result messages in a live region.
use leptos::prelude::*;

/// Severity of a toast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToastKind {
    /// Something succeeded.
    Success,
    /// Something failed.
    Error,
}

/// The toast queue, provided at the root.
#[derive(Debug, Clone, Copy)]
pub struct Toasts {
    items: RwSignal<Vec<(u64, ToastKind, String)>>,
    next: StoredValue<u64>,
}

impl Toasts {
    /// Provides an empty queue in context.
    pub fn provide() {
        provide_context(Toasts {
            items: RwSignal::new(Vec::new()),
            next: StoredValue::new(0),
        });
    }

    /// Shows a toast for five seconds.
    pub fn push(self, kind: ToastKind, message: impl Into<String>) {
        let id = self.next.get_value();
        self.next.set_value(id + 1);
        self.items.update(|v| v.push((id, kind, message.into())));
        let items = self.items;
        set_timeout(
            move || items.update(|v| v.retain(|(i, _, _)| *i != id)),
            std::time::Duration::from_secs(5),
        );
    }
}

/// The toast queue from context.
pub fn use_toasts() -> Toasts {
    expect_context::<Toasts>()
}

/// Renders the queue.
#[component]
pub fn ToastRegion() -> impl IntoView {
    let toasts = use_toasts();
    view! {
        <div role="status" aria-live="polite" class="pointer-events-none fixed bottom-4 right-4 z-50 flex w-80 max-w-full flex-col gap-2">
            <For each=move || toasts.items.get() key=|(id, _, _)| *id let:item>
                <div
                    data-testid="toast"
                    class=if item.1 == ToastKind::Success {
                        "pointer-events-auto rounded-md border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900 shadow-md dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100"
                    } else {
                        "pointer-events-auto rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900 shadow-md dark:border-red-900 dark:bg-red-950 dark:text-red-100"
                    }
                >
                    {item.2.clone()}
                </div>
            </For>
        </div>
    }
}
