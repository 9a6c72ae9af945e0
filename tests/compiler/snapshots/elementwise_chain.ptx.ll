; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @elementwise_chain(ptr addrspace(1) %a_base, i64 %0, ptr addrspace(1) %b_base, i64 %1, ptr addrspace(1) %c_base, i64 %2, ptr addrspace(1) %out3_base, i64 %3, i64 %4, i64 %n) {
entry:
  %tid.x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid.x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid.x = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %c = zext i32 %ctaid.x to i64
  %nt = zext i32 %ntid.x to i64
  %blk = mul i64 %c, %nt
  %t = zext i32 %tid.x to i64
  %gid = add i64 %blk, %t
  %in_range = icmp ult i64 %gid, %n
  br i1 %in_range, label %body, label %exit

body:                                             ; preds = %entry
  %off = mul i64 %gid, 8
  %boff = add i64 %2, %off
  %ptr = getelementptr i8, ptr addrspace(1) %c_base, i64 %boff
  %c_elem = load double, ptr addrspace(1) %ptr, align 8
  %off1 = mul i64 %gid, 8
  %boff2 = add i64 %1, %off1
  %ptr3 = getelementptr i8, ptr addrspace(1) %b_base, i64 %boff2
  %b_elem = load double, ptr addrspace(1) %ptr3, align 8
  %off4 = mul i64 %gid, 8
  %boff5 = add i64 %0, %off4
  %ptr6 = getelementptr i8, ptr addrspace(1) %a_base, i64 %boff5
  %a_elem = load double, ptr addrspace(1) %ptr6, align 8
  %mul = fmul double %a_elem, %b_elem
  %add = fadd double %mul, %c_elem
  %call = call double @__nv_sqrt(double %add)
  %sub = fsub double %call, 1.000000e+00
  %off7 = mul i64 %gid, 8
  %boff8 = add i64 %3, %off7
  %ptr9 = getelementptr i8, ptr addrspace(1) %out3_base, i64 %boff8
  store double %sub, ptr addrspace(1) %ptr9, align 8
  br label %exit

exit:                                             ; preds = %body, %entry
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #0

declare double @__nv_sqrt(double)

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
