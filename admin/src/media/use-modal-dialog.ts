import { onBeforeUnmount, onMounted, type Ref } from 'vue';

/**
 * Opens a native <dialog> as a modal when its component mounts (focus moves inside and stays
 * there, Esc cancels) and gives focus back to what had it when the component goes away.
 */
export function useModalDialog(dialog: Ref<HTMLDialogElement | undefined>): void {
  let returnTo: HTMLElement | null = null;
  onMounted(() => {
    returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.value?.open) dialog.value?.showModal();
  });
  onBeforeUnmount(() => {
    if (dialog.value?.open) dialog.value.close();
    // The opener may have been re-rendered meanwhile; focus it only if it is still on the page.
    if (returnTo?.isConnected) returnTo.focus();
  });
}
