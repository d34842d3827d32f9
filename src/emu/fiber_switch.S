/* fiber_switch.S: x86-64 context switch for the emulator's work-item fibers (SysV ABI). */
	.text
	.globl	emu_fiber_switch
	.type	emu_fiber_switch, @function
/* void emu_fiber_switch(void **save_sp, void *to_sp): push the callee-saved registers, store the
 * stack pointer in *save_sp, switch to to_sp and pop the registers saved there. Only the
 * registers the ABI makes callee-saved need saving: the switch is an ordinary call. */
emu_fiber_switch:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.size	emu_fiber_switch, .-emu_fiber_switch

	.globl	emu_fiber_trampoline
	.type	emu_fiber_trampoline, @function
/* First code a new fiber runs (reached through emu_fiber_switch's ret): r12 holds the argument
 * and r13 the function, as emu_fiber_init laid them out. The function never returns. */
emu_fiber_trampoline:
	movq	%r12, %rdi
	callq	*%r13
	ud2
	.size	emu_fiber_trampoline, .-emu_fiber_trampoline

	.section	.note.GNU-stack,"",@progbits
